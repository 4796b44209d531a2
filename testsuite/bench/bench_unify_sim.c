/*
 * bench_unify_sim.c - the job-wide unification and the write plan for P
 * simulated ranks in one process (P = 64 ... 16,384 by default).
 *
 * Per P: the binomial tree (output/unify_tree.c, the code the MPI ranks
 * run) per round: merges, the mean and longest merge, the most bytes a receiver got
 * and held; its critical path (sum of the rounds' mean merges) and the
 * most memory any simulated rank held.  Baseline, same run: the gather to
 * rank 0 used before the tree merge (rank 0 receives every rank's list, then
 * merges them): its merge time and rank 0's memory.  Write plan: per-rank
 * row counts -> offsets (one prefix sum over a vector of tables), the rows
 * and bytes of the file.
 *
 * Usage: bench_unify_sim [-v] [shared variant pool unique [P...]]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output/unify_tree.h"
#include "synth_paths.h"
#include "th_clock.h"

/* The scheme before the tree merge: rank 0 holds all lists (Gatherv), then merges. */
static void baseline(int size, struct synth *s, double *merge_s, double *mem_mb, int *keys)
{
	struct tly_names all = { 0 };
	size_t recv = 0;
	int64_t ns = 0;

	for (int k = 0; k < size; k++) {
		struct tly_names mine = { 0 };
		int64_t t0;

		synth_leaf(k, &mine, s);
		recv += mine.len;
		t0 = (int64_t)th_now_ns();
		tly_names_merge_packed(&all, mine.buf, mine.len);
		ns += (int64_t)th_now_ns() - t0;
		tly_names_free(&mine);
	}
	*merge_s = (double)ns / 1e9;
	*mem_mb = (double)(recv + tly_names_bytes(&all)) / 1e6;
	*keys = all.n;
	tly_names_free(&all);
}

/* Rows per rank of each table the writer sizes (region_stats per thread
 * and region, ranks, threads, mpi functions) and their file row sizes. */
enum { NT = 4 };
static const int row_bytes[NT] = { 104, 64, 48, 56 };

static void write_plan(int size, int regions, int threads, double *plan_s, double *rows, double *mb)
{
	int64_t *cnt = malloc((size_t)size * NT * sizeof *cnt), *off = calloc((size_t)size * NT, sizeof *off);
	int64_t tot[NT] = { 0 }, t0 = (int64_t)th_now_ns();

	for (int k = 0; k < size; k++) {
		cnt[k * NT + 0] = (int64_t)regions * threads;
		cnt[k * NT + 1] = 1;
		cnt[k * NT + 2] = threads;
		cnt[k * NT + 3] = 40;
	}
	/* what MPI_Exscan + MPI_Allreduce of one vector give every rank */
	for (int k = 0; k < size; k++)
		for (int t = 0; t < NT; t++) {
			off[k * NT + t] = tot[t];
			tot[t] += cnt[k * NT + t];
		}
	*plan_s = (double)((int64_t)th_now_ns() - t0) / 1e9;
	*rows = 0;
	*mb = 0;
	for (int t = 0; t < NT; t++) {
		*rows += (double)tot[t];
		*mb += (double)tot[t] * row_bytes[t] / 1e6;
	}
	free(cnt);
	free(off);
}

static int run(int size, struct synth *s, int verbose)
{
	int rounds = tly_tree_rounds(size), keys0;
	struct tly_tree_round st[32];
	struct tly_names out = { 0 };
	int64_t t0 = (int64_t)th_now_ns(), crit = 0, worst = 0;
	size_t held = 0, recv = 0;
	double wall, base_s, base_mb, plan_s, rows, mb;

	if (tly_tree_sim(size, synth_leaf, s, &out, st)) {
		printf("P=%d: tree merge failed\n", size);
		return 1;
	}
	wall = (double)((int64_t)th_now_ns() - t0) / 1e9;
	for (int r = 0; r < rounds; r++) {
		if (verbose)
			printf("  P %6d round %2d: merges %5d  mean %8.3f ms  longest %8.3f ms  recv %8.1f kB  held %8.1f kB\n",
			       size, r, st[r].merges, st[r].sum_ns / 1e6 / st[r].merges, st[r].max_ns / 1e6,
			       st[r].max_recv / 1e3, st[r].max_held / 1e3);
		/* the ranks of a round merge in parallel: a round costs one merge
		 * (the mean; the longest is mostly this shared machine's preemption) */
		crit += st[r].sum_ns / st[r].merges;
		worst += st[r].max_ns;
		held = st[r].max_held > held ? st[r].max_held : held;
		recv = st[r].max_recv > recv ? st[r].max_recv : recv;
	}
	baseline(size, s, &base_s, &base_mb, &keys0);
	write_plan(size, s->shared + s->variant + s->unique, 1, &plan_s, &rows, &mb);
	printf("P %6d  keys %7d  rounds %2d  tree critical %8.3f ms (longest %8.3f)  peak rank %7.2f MB  (sim wall %6.2f s)  "
	       "gather-to-0 merge %8.3f ms  rank0 %8.2f MB  ratio time %6.1f mem %6.1f  "
	       "plan %6.3f ms  rows %.3g  file %.1f MB  %s\n",
	       size, out.n, rounds, crit / 1e6, worst / 1e6, held / 1e6, wall, base_s * 1e3, base_mb, base_s * 1e9 / (double)(crit ? crit : 1),
	       base_mb * 1e6 / (double)(held ? held : 1), plan_s * 1e3, rows, mb, keys0 == out.n ? "ok" : "MISMATCH");
	tly_names_free(&out);
	return keys0 != out.n;
}

int main(int argc, char **argv)
{
	struct synth s = { .shared = 900, .variant = 100, .pool = 200, .unique = 1 };
	int verbose = argc > 1 && !strcmp(argv[1], "-v"), a = 1 + verbose, rc = 0;

	if (argc - a >= 4) {
		s.shared = atoi(argv[a]);
		s.variant = atoi(argv[a + 1]);
		s.pool = atoi(argv[a + 2]);
		s.unique = atoi(argv[a + 3]);
		a += 4;
	}
	printf("per rank: %d shared paths, %d of a pool of %d, %d rank-only\n", s.shared, s.variant, s.pool, s.unique);
	if (a < argc) {
		for (; a < argc; a++)
			rc |= run(atoi(argv[a]), &s, verbose);
	} else {
		for (int p = 64; p <= 16384; p *= 2)
			rc |= run(p, &s, verbose);
	}
	return rc;
}
