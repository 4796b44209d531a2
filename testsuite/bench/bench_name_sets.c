/*
 * bench_name_sets.c - huge name sets under tally-run: distinct
 * region names under one parent and NVTX marks, in growing batches up to
 * 1,000,000 each.  The time per name must stay flat (linear total: hashed
 * children, no sibling scan) and the memory must stop growing at the limits
 * (TALLY_MAX_REGIONS, TALLY_NVTX_MAX_MARKS).  The floor measured in the
 * same run is the cost of formatting the names alone; ratios are printed.
 * Fails when the last batch costs more than 4x per name the first batch of
 * its kind (a sibling scan makes it 12x: its mean position is 12 times
 * the first's; the bound leaves room for a busy machine's noise, seen up
 * to 5x on one batch of the floor), and, with --bounded (limits of 100,000 each), when
 * the maximum RSS grows more than 64 MiB over the last two batches (past
 * the limits nothing more is kept).
 *   tally-run -- bench_name_sets --bounded   (defaults: limits 100,000 each)
 *   TALLY_MAX_REGIONS=2000000 tally-run -- bench_name_sets   (all hashed)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <nvtx3/nvToolsExt.h>

#include "tally.h"

#include "th_clock.h"

#define STEPS 4
#define MAX_RATIO 4.0
#define MAX_GROWTH_MIB 64
static const long upto[STEPS] = { 125000, 250000, 500000, 1000000 };

static long rss_mib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

/* Seconds for names [from, to): the floor formats them only. */
static double batch(long from, long to, int what)
{
	volatile long sink = 0;
	char name[48];
	double t0 = th_now_s();

	for (long i = from; i < to; i++) {
		int n = snprintf(name, sizeof name, "name-%ld", i);

		if (what == 1) {
			tally_region_begin(name);
			tally_region_end(name);
		} else if (what == 2) {
			nvtxMarkA(name);
		}
		sink += n;
	}
	(void)sink;
	return th_now_s() - t0;
}

int main(int argc, char **argv)
{
	static const char *const label[3] = { "floor (format only)", "distinct regions", "NVTX marks" };
	int bounded = argc > 1 && strcmp(argv[1], "--bounded") == 0, bad = 0;

	for (int what = 0; what < 3; what++) {
		long from = 0, rss_mid = 0;
		double first = 0, last = 0;

		for (int s = 0; s < STEPS; s++) {
			double dt = batch(from, upto[s], what), per = dt / (double)(upto[s] - from) * 1e9;

			if (s == 0)
				first = per;
			last = per / first;
			if (s == STEPS - 3)
				rss_mid = rss_mib();
			printf("%-20s %8ld names: %7.1f ns each (x%.2f of the first batch), max RSS %ld MiB\n",
			       label[what], upto[s], per, per / first, rss_mib());
			from = upto[s];
		}
		if (what > 0 && last > MAX_RATIO) {
			printf("FAIL %s: the last batch costs x%.2f per name of the first (at most x%.1f)\n",
			       label[what], last, MAX_RATIO);
			bad = 1;
		}
		if (what > 0 && bounded && rss_mib() - rss_mid > MAX_GROWTH_MIB) {
			printf("FAIL %s: max RSS grew %ld MiB over the last two batches past the limits "
			       "(at most %d)\n", label[what], rss_mib() - rss_mid, MAX_GROWTH_MIB);
			bad = 1;
		}
	}
	printf("%s\n", bad ? "FAILED" : "ok: time per name flat within the bounds");
	return bad;
}
