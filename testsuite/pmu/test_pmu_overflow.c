/*
 * test_pmu_overflow.c - overflow interrupts on PAPI_TOT_CYC.
 *
 * A threshold of 10^6 cycles over a loop of 6*10^7 instructions (= cycles
 * under QEMU -icount shift=0) must call the handler 60 times; one more
 * or less is allowed for where the measurement's own instructions put
 * the boundaries.  The handler must name the set and PAPI_TOT_CYC's bit.
 * QEMU delivers overflow interrupts exactly on the cycle counter (on the
 * programmable counters they come late, at the next timer tick), so the
 * test uses cycles, as docs/pmuvm.md explains.
 *
 * The cycle count itself is 6*10^7 + C (the measurement's constant,
 * taken with an empty loop and the same overflow setting, when no
 * interrupt fires) + the user instructions of the 60 handler calls
 * (signal delivery, Tally's dispatch, the handler): those must be
 * positive and under MAX_PER_CALL each.
 */
#include "pmu_util.h"

#define THRESHOLD 1000000
#define LOOP_N 30000000ull /* 6*10^7 instructions */
#define MAX_PER_CALL 5000

struct seen {
	int set;
	int calls;
	int bad_set;
	int bad_vector;
};
static _Thread_local struct seen seen;

static void handler(int set, void *addr, long long vector, void *ctx)
{
	(void)addr;
	(void)ctx;
	seen.calls++;
	if (set != seen.set)
		seen.bad_set++;
	if (vector != 1) /* PAPI_TOT_CYC is the set's only event: bit 0 */
		seen.bad_vector++;
}

int main(void)
{
	int set = PAPI_NULL, rc;
	long long v[1];

	pmu_require();
	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_add_event(set, PAPI_TOT_CYC), PAPI_OK);
	seen.set = set;
	rc = PAPI_overflow(set, PAPI_TOT_CYC, THRESHOLD, 0, handler);
	if (rc != PAPI_OK)
		printf("PAPI_overflow: %s\n", PAPI_strerror(rc));
	TH_EQ(rc, PAPI_OK);
	long long c[1], extra;

	TH_EQ(pmu_measure(set, 0, c), PAPI_OK);
	TH_EQ(seen.calls, 0);
	TH_EQ(pmu_measure(set, LOOP_N, v), PAPI_OK);
	extra = v[0] - c[0] - 2 * (long long)LOOP_N;
	printf("cycles %lld = 6*10^7 + constant %lld + %lld in %d handler calls (expected 60 +- 1)\n", v[0], c[0],
	       extra, seen.calls);
	TH_CHECK(seen.calls >= 59 && seen.calls <= 61);
	TH_CHECK(extra > 0 && extra < (long long)seen.calls * MAX_PER_CALL);
	TH_EQ(seen.bad_set, 0);
	TH_EQ(seen.bad_vector, 0);
	TH_EQ(PAPI_overflow(set, PAPI_TOT_CYC, 0, 0, handler), PAPI_OK);
	PAPI_cleanup_eventset(set);
	TH_EQ(PAPI_destroy_eventset(&set), PAPI_OK);
	PAPI_shutdown();
	return th_done();
}
