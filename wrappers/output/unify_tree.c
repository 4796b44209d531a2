/*
 * unify_tree.c - binomial-tree merge of key tables (see unify_tree.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "output/unify_tree.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

int tly_tree_rounds(int size)
{
	int r = 0;

	while (size > 0 && (1LL << r) < size)
		r++;
	return r;
}

enum tly_tree_role tly_tree_role(int rank, int size, int round, int *peer)
{
	int bit = 1 << round;

	*peer = -1;
	if (rank < 0 || rank >= size || round < 0 || round > 30)
		return TLY_TREE_IDLE;
	if (rank & (bit - 1))
		return TLY_TREE_IDLE;           /* sent its table in an earlier round */
	if (rank & bit) {
		*peer = rank - bit;
		return TLY_TREE_SEND;
	}
	if (rank + bit < size) {
		*peer = rank + bit;
		return TLY_TREE_RECV;
	}
	return TLY_TREE_IDLE;
}

int tly_names_merge_packed(struct tly_names *into, const char *buf, size_t len)
{
	size_t at = 0;

	if (len && buf[len - 1] != '\0')
		return -1;
	while (at < len) {
		size_t k = strlen(buf + at);

		if (tly_names_add(into, buf + at) < 0)
			return -1;
		at += k + 1;
	}
	return 0;
}

int32_t *tly_names_map(const struct tly_names *all, const struct tly_names *local)
{
	int32_t *m = malloc(((size_t)local->n + 1) * sizeof *m);

	for (int i = 0; m && i < local->n; i++)
		m[i] = tly_names_find(all, tly_names_key(local, i));
	return m;
}

size_t tly_names_bytes(const struct tly_names *nm)
{
	return nm->cap + (size_t)nm->ncap * sizeof *nm->off + (size_t)nm->tabcap * sizeof *nm->tab;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void note(struct tly_tree_round *st, int64_t ns, size_t recv, size_t held)
{
	st->merges++;
	st->sum_ns += ns;
	if (ns > st->max_ns)
		st->max_ns = ns;
	if (recv > st->max_recv)
		st->max_recv = recv;
	if (held > st->max_held)
		st->max_held = held;
}

/* Table of ranks [rank, rank + 2^level) into *out: what `rank` holds after
 * round level - 1 of the tree. */
static int subtree(int rank, int level, int size, tly_tree_leaf_fn leaf, void *arg,
		   struct tly_names *out, struct tly_tree_round *st)
{
	struct tly_names right = { 0 };
	int half, rc;
	int64_t t0;

	if (level == 0)
		return leaf(rank, out, arg);
	half = 1 << (level - 1);
	if (subtree(rank, level - 1, size, leaf, arg, out, st))
		return -1;
	if (rank + half >= size)
		return 0;
	if (subtree(rank + half, level - 1, size, leaf, arg, &right, st)) {
		tly_names_free(&right);
		return -1;
	}
	t0 = now_ns();
	rc = tly_names_merge_packed(out, right.buf, right.len);
	if (st)
		note(&st[level - 1], now_ns() - t0, right.len, tly_names_bytes(out) + right.len);
	tly_names_free(&right);
	return rc;
}

int tly_tree_sim(int size, tly_tree_leaf_fn leaf, void *arg, struct tly_names *out,
		 struct tly_tree_round *st)
{
	if (size < 1 || !leaf || !out)
		return -1;
	if (st)
		memset(st, 0, (size_t)tly_tree_rounds(size) * sizeof *st);
	return subtree(0, tly_tree_rounds(size), size, leaf, arg, out, st);
}
