/*
 * id_pool.h - small non-negative ids handed out lowest-free-first in
 * O(log n): freed ids wait in a min-heap, fresh ids come from a high-water
 * mark.  Not locked: the owner holds its own lock around every call.
 */
#ifndef TALLY_CORE_ID_POOL_H
#define TALLY_CORE_ID_POOL_H

struct tly_id_pool {
	int *heap;   /* freed ids below `next`, smallest first */
	int n, cap;
	int next;    /* ids >= next were never handed out */
	int limit;   /* ids < limit */
};

/* The lowest free id, or -1 when all `limit` ids are taken (or no memory). */
int tly_id_take(struct tly_id_pool *p);
/* Gives back an id tly_id_take returned; 0, or -1 without memory (the id is then lost). */
int tly_id_give(struct tly_id_pool *p, int id);
/* Forgets every id and frees the heap. */
void tly_id_reset(struct tly_id_pool *p);

#endif
