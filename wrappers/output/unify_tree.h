/*
 * unify_tree.h - the job-wide key table merged up a binomial tree.  Pure
 * (no MPI): unify.c moves the packed tables between ranks, the simulation
 * (testsuite/bench/bench_unify_sim.c) runs the whole tree in one process.
 *
 * Rank r's subtree holds ranks [r, r + 2^l) after round l; merging the
 * left table then the right one keeps the first occurrence in rank order,
 * so the result equals a merge of every rank's keys in rank order (a
 * parent path always precedes its children), whatever the number of ranks.
 */
#ifndef TALLY_UNIFY_TREE_H
#define TALLY_UNIFY_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "output/names.h"

enum tly_tree_role { TLY_TREE_IDLE, TLY_TREE_RECV, TLY_TREE_SEND };

/* Rounds of a tree over `size` ranks: ceil(log2(size)). */
int tly_tree_rounds(int size);
/* What `rank` does in `round`, and with whom (*peer). */
enum tly_tree_role tly_tree_role(int rank, int size, int round, int *peer);
/* Append the keys of a packed buffer (NUL-terminated keys back to back,
 * as names.buf) not yet in `into`, in order.  0, or -1 (malformed buffer,
 * no memory). */
int tly_names_merge_packed(struct tly_names *into, const char *buf, size_t len);
/* Id in `all` of each key of `local`; malloc'd, local->n entries (-1: absent). */
int32_t *tly_names_map(const struct tly_names *all, const struct tly_names *local);
/* Bytes a table holds (keys, offsets, hash). */
size_t tly_names_bytes(const struct tly_names *nm);

/* Per round of a simulated tree: merges done, the longest one, the most
 * bytes a receiver got, the most bytes a receiver held during its merge. */
struct tly_tree_round {
	int merges;
	int64_t max_ns, sum_ns;
	size_t max_recv, max_held;
};
/* Rank r's own keys, built when the simulation needs them; 0 or -1. */
typedef int (*tly_tree_leaf_fn)(int rank, struct tly_names *out, void *arg);
/*
 * The whole tree for `size` ranks in one process, depth first (at most
 * rounds + 1 tables alive).  The job table ends in *out; st (may be NULL)
 * gets tly_tree_rounds(size) entries.  0 or -1.
 */
int tly_tree_sim(int size, tly_tree_leaf_fn leaf, void *arg, struct tly_names *out,
		 struct tly_tree_round *st);

#endif
