/*
 * test_unify_tree.c - the binomial-tree unification (output/unify_tree.c)
 * gives exactly the table of a plain merge of every rank's paths in rank
 * order, and the same per-rank id maps, for powers of two and not; the
 * round schedule pairs every sender with a receiver in the same round.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/unify_tree.h"
#include "synth_paths.h"

static int fails;

#define CHECK(c, ...) do { if (!(c)) { fails++; printf("FAIL: " __VA_ARGS__); printf("\n"); } } while (0)

/* Every rank but 0 sends once, to a rank that receives from it in that round. */
static void check_schedule(int size)
{
	int *sent = calloc((size_t)size, sizeof *sent);

	for (int r = 0; r < tly_tree_rounds(size); r++)
		for (int k = 0; k < size; k++) {
			int peer, back;
			enum tly_tree_role role = tly_tree_role(k, size, r, &peer);

			if (role == TLY_TREE_SEND) {
				sent[k]++;
				CHECK(tly_tree_role(peer, size, r, &back) == TLY_TREE_RECV && back == k,
				      "P=%d round %d: rank %d sends to %d, which does not receive from it", size, r, k, peer);
			}
		}
	for (int k = 0; k < size; k++)
		CHECK(sent[k] == (k != 0), "P=%d: rank %d sent %d times", size, k, sent[k]);
	free(sent);
}

/* The tree round by round, as the MPI ranks run it, on real tables. */
static int breadth_first(int size, struct synth *s, struct tly_names *out)
{
	struct tly_names *t = calloc((size_t)size, sizeof *t);
	int bad = 0;

	for (int k = 0; k < size; k++)
		bad |= synth_leaf(k, &t[k], s);
	for (int r = 0; r < tly_tree_rounds(size); r++)
		for (int k = 0; k < size; k++) {
			int peer;

			if (tly_tree_role(k, size, r, &peer) == TLY_TREE_RECV) {
				bad |= tly_names_merge_packed(&t[k], t[peer].buf, t[peer].len);
				tly_names_free(&t[peer]);
			}
		}
	*out = t[0];
	for (int k = 1; k < size; k++)
		tly_names_free(&t[k]);
	free(t);
	return bad;
}

static int same(const struct tly_names *a, const struct tly_names *b)
{
	if (a->n != b->n || a->len != b->len)
		return 0;
	for (int i = 0; i < a->n; i++)
		if (strcmp(tly_names_key(a, i), tly_names_key(b, i)))
			return 0;
	return 1;
}

static void check_maps(int size, struct synth *s, const struct tly_names *flat, const struct tly_names *tree)
{
	for (int k = 0; k < size; k++) {
		struct tly_names mine = { 0 };
		int32_t *mf, *mt;

		synth_leaf(k, &mine, s);
		mf = tly_names_map(flat, &mine);
		mt = tly_names_map(tree, &mine);
		for (int i = 0; mf && mt && i < mine.n; i++) {
			CHECK(mf[i] == mt[i] && mt[i] >= 0, "P=%d rank %d key %d: id %d (plain) vs %d (tree)",
			      size, k, i, mf[i], mt[i]);
			CHECK(mt[i] >= 0 && !strcmp(tly_names_key(tree, mt[i]), tly_names_key(&mine, i)),
			      "P=%d rank %d key %d maps to another key", size, k, i);
		}
		free(mf);
		free(mt);
		tly_names_free(&mine);
	}
}

static void one(int size, struct synth *s)
{
	struct tly_names flat = { 0 }, tree = { 0 }, bfs = { 0 };
	struct tly_tree_round st[32];
	int merges = 0;

	check_schedule(size);
	for (int k = 0; k < size; k++) {
		struct tly_names mine = { 0 };

		synth_leaf(k, &mine, s);
		tly_names_merge_packed(&flat, mine.buf, mine.len);
		tly_names_free(&mine);
	}
	CHECK(tly_tree_sim(size, synth_leaf, s, &tree, st) == 0, "P=%d: tree failed", size);
	CHECK(breadth_first(size, s, &bfs) == 0, "P=%d: breadth-first tree failed", size);
	CHECK(same(&flat, &tree), "P=%d: tree table (%d keys) differs from plain merge (%d keys)", size, tree.n, flat.n);
	CHECK(same(&flat, &bfs), "P=%d: round-by-round table differs from plain merge", size);
	for (int r = 0; r < tly_tree_rounds(size); r++)
		merges += st[r].merges;
	CHECK(merges == size - 1, "P=%d: %d merges, want %d", size, merges, size - 1);
	check_maps(size, s, &flat, &tree);
	printf("P=%5d  shared %d variant %d/%d unique %d shuffle %d: %d keys, %d rounds, %d merges\n", size,
	       s->shared, s->variant, s->pool, s->unique, s->shuffle, tree.n, tly_tree_rounds(size), merges);
	tly_names_free(&flat);
	tly_names_free(&tree);
	tly_names_free(&bfs);
}

int main(void)
{
	static const int sizes[] = { 1, 2, 3, 5, 7, 8, 13, 64, 100, 257, 1000 };
	struct synth a = { .shared = 60, .variant = 10, .pool = 25, .unique = 2 };
	struct synth b = { .shared = 40, .variant = 5, .pool = 7, .unique = 0, .shuffle = 1 };

	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		one(sizes[i], &a);
		one(sizes[i], &b);
	}
	CHECK(tly_tree_rounds(1) == 0 && tly_tree_rounds(2) == 1 && tly_tree_rounds(3) == 2 &&
	      tly_tree_rounds(16384) == 14 && tly_tree_rounds(16385) == 15, "tly_tree_rounds");
	CHECK(tly_names_merge_packed(&(struct tly_names){ 0 }, "ab", 2) == -1, "unterminated buffer accepted");
	printf("%s\n", fails ? "FAILED" : "ok");
	return fails ? 1 : 0;
}
