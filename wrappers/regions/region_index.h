/*
 * region_index.h - a thread's region nodes found by (parent, kind, name) in
 * expected O(1): an open-addressing hash table of node indices beside the
 * thread's node array.  Owned by the thread, like the nodes.
 */
#ifndef TALLY_REGION_INDEX_H
#define TALLY_REGION_INDEX_H

#include "runtime/rt.h"

/* The hash of a child key: MPI regions by their static name's pointer,
 * the others by their text. */
uint32_t tly_rx_hash(int32_t parent, const char *name, int kind);
/* The child of `parent` with this key, or -1. */
int32_t tly_rx_find(const struct tly_rt_thread *t, int32_t parent, const char *name, int kind, uint32_t h);
/* Adds node `n` (its hash already in t->nodes[n].hash); -1 without memory. */
int tly_rx_add(struct tly_rt_thread *t, int32_t n);
/* The child found for this key by an earlier lookup of the same name
 * pointer, or -1: only for OpenMP regions, whose names the runtime interns
 * for the process's life (tly_rt_omp_name, static labels). */
int32_t tly_rx_memo_get(const struct tly_rt_thread *t, int32_t parent, const char *name, int kind);
/* Keeps child `n` of that key for tly_rx_memo_get (nothing for other kinds). */
void tly_rx_memo_put(struct tly_rt_thread *t, int32_t parent, const char *name, int kind, int32_t n);

#endif
