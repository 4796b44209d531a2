/*
 * bench_mpx_read.c - PAPI_read of a multiplexed 4-event set
 * (PAGE-FAULTS, MINOR-FAULTS, TASK-CLOCK, CPU-CLOCK: one perf group per
 * counter) against the floor: one bare read() of each of the same fds.
 * Under TALLY_PERF_MAX_COUNTERS=2 (ctest bench_mpx_read_budget2) the set
 * is rotated by the component's timer while the benchmark runs.  Medians
 * of alternating batches, as bench_perf_read.  Exit 0 unless a call fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"
#include "tally.h"
#include "core/eventset.h"
#include "components/perf_event/pe_internal.h"
#include "th_clock.h"

#define BATCH 100
#define NBATCH 200
#define NEV 4

static int evset, nfd, failed;
static int fds[NEV];
static long long vals[NEV];
static uint64_t raw[8];

static void papi_read(void)
{
	if (PAPI_read(evset, vals) != PAPI_OK)
		failed = 1;
}

static void sys_read(void)
{
	for (int i = 0; i < nfd; i++)
		if (read(fds[i], raw, 4 * sizeof(uint64_t)) != 4 * sizeof(uint64_t))
			failed = 1;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double batch(void (*fn)(void))
{
	double t0 = th_now_ns();

	for (int i = 0; i < BATCH; i++)
		fn();
	return (th_now_ns() - t0) / BATCH;
}

int main(void)
{
	const char *names[NEV] = { "perf::PAGE-FAULTS", "perf::MINOR-FAULTS", "perf::TASK-CLOCK", "perf::CPU-CLOCK" };
	static double ta[NBATCH], tb[NBATCH];
	struct tly_evset *es;
	double cov[NEV];
	const char *budget = getenv("TALLY_PERF_MAX_COUNTERS");

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return 1;
	evset = PAPI_NULL;
	if (PAPI_create_eventset(&evset) || PAPI_assign_eventset_component(evset, 0) || PAPI_set_multiplex(evset))
		return 1;
	for (int i = 0; i < NEV; i++)
		if (PAPI_add_named_event(evset, names[i]) != PAPI_OK)
			return 1;
	if (PAPI_start(evset) != PAPI_OK || tly_evset_get(evset, &es) != PAPI_OK)
		return 1;
	nfd = tly_pe_ctl_fds(es->a->part[0].ctl, fds, NEV);
	for (int i = 0; i < 10; i++) {
		papi_read();
		sys_read();
	}
	for (int i = 0; i < NBATCH; i++) {
		ta[i] = batch(papi_read);
		tb[i] = batch(sys_read);
	}
	qsort(ta, NBATCH, sizeof ta[0], cmp);
	qsort(tb, NBATCH, sizeof tb[0], cmp);
	tally_multiplex_coverage(evset, cov);
	printf("multiplexed 4-event set, %d perf fds, budget %s; coverage %.2f %.2f %.2f %.2f\n", nfd,
	       budget ? budget : "none", cov[0], cov[1], cov[2], cov[3]);
	printf("%-30s %10s %10s %8s\n", "operation", "PAPI ns", "floor ns", "ratio");
	printf("%-30s %10.1f %10.1f %8.3f\n", "PAPI_read vs 4 bare read()", ta[NBATCH / 2], tb[NBATCH / 2],
	       ta[NBATCH / 2] / tb[NBATCH / 2]);
	PAPI_stop(evset, vals);
	PAPI_shutdown();
	return failed;
}
