/*
 * pe_budget.c - TALLY_PERF_MAX_COUNTERS, a testing knob.
 *
 * Machines without a hardware PMU count only software events, which the
 * kernel never runs out of, so scheduling conflicts and multiplexing could
 * not be exercised there.  With TALLY_PERF_MAX_COUNTERS=N the component
 * believes it has N counters for every kind of event: a set of more than N
 * natives is refused with PAPI_ECNFLCT unless multiplexed, and a
 * multiplexed one is rotated N counters at a time.  Counts stay real;
 * only the budget is lowered.  Read once per process (the environment is
 * not expected to change); a bad value is reported and ignored.
 */
#include "pe_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "services/err_detail.h"
#include "tally_shared.h"

static int parse_budget(void)
{
	long long n = tly_setting_count(TLY_SET_perf_max_counters);

	if (n > TLY_PE_MAX_EVENTS) {
		fprintf(stderr, "tally: TALLY_PERF_MAX_COUNTERS=%lld ignored: want 1..%d\n", n, TLY_PE_MAX_EVENTS);
		return 0;
	}
	return (int)n;
}

int tly_pe_budget(void)
{
	/* -1: not read yet.  Racing first readers compute the same value. */
	static atomic_int budget = -1;
	int b = atomic_load_explicit(&budget, memory_order_relaxed);

	if (b < 0) {
		b = parse_budget();
		atomic_store_explicit(&budget, b, memory_order_relaxed);
	}
	return b;
}

int tly_pe_budget_check(int n)
{
	int b = tly_pe_budget();

	if (b > 0 && n > b)
		return tly_err_set(PAPI_ECNFLCT, "perf_event: %d events do not fit the %d counters of the budget "
		                   "TALLY_PERF_MAX_COUNTERS=%d; use fewer events or multiplexing", n, b, b);
	return PAPI_OK;
}
