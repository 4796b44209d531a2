/* bench_runtime_region.c - region enter+exit under tally-run with 3
 * software counters (TALLY_EVENTS, set by the test) against a bare
 * PAPI_read of the same 3 events in an event set of the program's own, in
 * the same process.  A pair reads the thread's set twice (entry, exit), so
 * the floor is 2 reads; the rest is the region tree's bookkeeping. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "papi.h"
#include "tally.h"

#include "th_clock.h"

#define N 200000
#define BLOCKS 7

static const char *const evs[] = { "perf::TASK-CLOCK", "perf::PAGE-FAULTS", "perf::CONTEXT-SWITCHES" };

static double pairs(void)
{
	double t0 = th_now_ns();

	for (int i = 0; i < N; i++) {
		tally_region_begin("bench");
		tally_region_end("bench");
	}
	return (th_now_ns() - t0) / N;
}

static double reads(int es)
{
	long long v[3];
	double t0 = th_now_ns();

	for (int i = 0; i < N; i++)
		PAPI_read(es, v);
	return (th_now_ns() - t0) / N;
}

int main(void)
{
	int es = PAPI_NULL;
	double bp = 1e30, br = 1e30;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT || PAPI_create_eventset(&es) != PAPI_OK)
		return 1;
	for (int i = 0; i < 3; i++)
		if (PAPI_add_named_event(es, evs[i]) != PAPI_OK) {
			printf("SKIP: %s cannot be counted here\n", evs[i]);
			return 77;
		}
	if (PAPI_start(es) != PAPI_OK)
		return 1;
	pairs();
	reads(es);
	for (int b = 0; b < BLOCKS; b++) {
		double p = pairs(), r = reads(es);

		bp = p < bp ? p : bp;
		br = r < br ? r : br;
	}
	printf("region enter+exit (3 software counters): %.0f ns per pair; bare PAPI_read of the same "
	       "3 events: %.0f ns; pair / read = %.2f (floor 2: a pair reads twice)\n", bp, br, bp / br);
	return 0;
}
