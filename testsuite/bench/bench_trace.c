/* bench_trace.c - region enter+exit pairs, timed inside the program: run
 * by bench_trace.sh under tally-run in profile mode and in trace mode
 * (--trace) with the same counters, so the difference per event is what
 * the trace adds.  Prints the best block's ns per event (an enter or a
 * leave) and the number of region events it made.  Timed in the thread's
 * CPU time (flushes to the archive's files included): on a shared
 * machine another process's time slice is not the trace's cost. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "tally.h"
#include <time.h>

#define N 200000
#define BLOCKS 9

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(void)
{
	double best = 1e30;

	for (int b = 0; b < BLOCKS; b++) {
		double t0 = cpu_ns(), dt;

		for (int i = 0; i < N; i++) {
			tally_region_begin("bench");
			tally_region_end("bench");
		}
		dt = (cpu_ns() - t0) / (2.0 * N);
		best = dt < best ? dt : best;
	}
	printf("ns_per_event %.2f\n", best);
	printf("events %ld\n", 2L * N * BLOCKS);
	return 0;
}
