/*
 * test_pmu_ovf_multi.c - overflow and profiling on one event of a set of
 * two hardware events, {PAPI_TOT_CYC, PAPI_TOT_INS}, as PAPI 7 allows.
 *
 * PAPI_TOT_CYC overflows every 10^6 cycles over pmu_loop(3*10^7): 60
 * handler calls (one more or less), each naming bit 0 (PAPI_TOT_CYC's
 * position); PAPI_TOT_INS counts on beside it: its count minus that of an
 * empty measurement is 6*10^7 exactly, as without overflow (the handler
 * calls cost instructions only in the signal handler, which the
 * instructions counter also sees: at most MAX_PER_CALL each).  Then the
 * overflow moves to PAPI_TOT_INS (cleared and set on the other event),
 * then both overflow (QEMU is exact on instructions only with a cycle
 * sampler alongside), then PAPI_profil on PAPI_TOT_CYC of the same set.
 * Multiplexing with overflow is refused (docs/multiplex-overflow.md).
 */
#include <string.h>

#include "pmu_util.h"

#define THRESHOLD 1000000
#define LOOP_N 30000000ull
#define MAX_PER_CALL 5000

static _Thread_local int calls[2], bad_vector;

static void handler(int set, void *addr, long long vector, void *ctx)
{
	(void)set;
	(void)addr;
	(void)ctx;
	if (vector & 1)
		calls[0]++;
	if (vector & 2)
		calls[1]++;
	if (!vector || (vector & ~3LL))
		bad_vector++;
}

static void measure(int set, uint64_t n, long long *v)
{
	calls[0] = calls[1] = bad_vector = 0;
	TH_EQ(pmu_measure(set, n, v), PAPI_OK);
}

int main(void)
{
	int set = PAPI_NULL;
	long long c[2], v[2];
	unsigned short prof[32];

	pmu_require();
	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_add_event(set, PAPI_TOT_CYC), PAPI_OK);
	TH_EQ(PAPI_add_event(set, PAPI_TOT_INS), PAPI_OK);
	measure(set, 0, c); /* warm up: lazy binding */
	measure(set, 0, c); /* counting only: the constants */

	/* overflow on cycles, instructions counted beside */
	TH_EQ(PAPI_overflow(set, PAPI_TOT_CYC, THRESHOLD, 0, handler), PAPI_OK);
	measure(set, LOOP_N, v);
	printf("overflow on cycles: %d + %d calls; cycles %lld, instructions %lld - %lld\n", calls[0], calls[1], v[0],
	       v[1], c[1]);
	TH_CHECK(calls[0] >= 59 && calls[0] <= 61);
	TH_EQ(calls[1], 0);
	TH_EQ(bad_vector, 0);
	TH_CHECK(v[1] - c[1] >= 2 * (long long)LOOP_N);
	TH_CHECK(v[1] - c[1] - 2 * (long long)LOOP_N <= (long long)calls[0] * MAX_PER_CALL);
	TH_CHECK(v[0] - 2 * (long long)LOOP_N >= 0);

	/* moved to instructions (cleared on cycles first) */
	TH_EQ(PAPI_overflow(set, PAPI_TOT_CYC, 0, 0, handler), PAPI_OK);
	TH_EQ(PAPI_overflow(set, PAPI_TOT_INS, THRESHOLD, 0, handler), PAPI_OK);
	measure(set, LOOP_N, v);
	printf("overflow on instructions: %d + %d calls\n", calls[0], calls[1]);
	/* QEMU raises overflow interrupts of programmable counters late (at
	 * the next tick) unless a cycle sampler runs too (docs/pmuvm.md):
	 * only the routing is checked alone, the count with both below */
	TH_EQ(calls[0], 0);
	TH_CHECK(calls[1] >= 1 && calls[1] <= 61);

	/* both */
	TH_EQ(PAPI_overflow(set, PAPI_TOT_CYC, THRESHOLD, 0, handler), PAPI_OK);
	measure(set, LOOP_N, v);
	printf("overflow on both: %d + %d calls\n", calls[0], calls[1]);
	TH_CHECK(calls[0] >= 59 && calls[0] <= 61);
	TH_CHECK(calls[1] >= 59 && calls[1] <= 61);
	TH_EQ(PAPI_overflow(set, PAPI_TOT_CYC, 0, 0, handler), PAPI_OK);
	TH_EQ(PAPI_overflow(set, PAPI_TOT_INS, 0, 0, handler), PAPI_OK);

	/* counting again after overflow was cleared: the constants again */
	measure(set, 0, v);
	TH_EQ(v[1], c[1]);

	/* PAPI_profil on cycles of the two-event set */
	memset(prof, 0, sizeof prof);
	TH_EQ(PAPI_profil(prof, sizeof prof, (vptr_t)pmu_loop, 0x10000, set, PAPI_TOT_CYC, THRESHOLD,
	                  PAPI_PROFIL_POSIX), PAPI_OK);
	measure(set, LOOP_N, v);
	long long hits = 0;

	for (size_t i = 0; i < sizeof prof / sizeof prof[0]; i++)
		hits += prof[i];
	printf("PAPI_profil on cycles: %lld hits in pmu_loop; instructions %lld\n", hits, v[1]);
	TH_CHECK(hits >= v[0] / THRESHOLD - 3 && hits <= v[0] / THRESHOLD + 1);
	TH_CHECK(v[1] - c[1] >= 2 * (long long)LOOP_N);
	TH_EQ(PAPI_profil(prof, sizeof prof, (vptr_t)pmu_loop, 0x10000, set, PAPI_TOT_CYC, 0, PAPI_PROFIL_POSIX),
	      PAPI_OK);

	/* multiplexing with overflow: refused, as documented */
	PAPI_cleanup_eventset(set);
	TH_EQ(PAPI_destroy_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_multiplex_init(), PAPI_OK);
	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_add_event(set, PAPI_TOT_CYC), PAPI_OK);
	TH_EQ(PAPI_add_event(set, PAPI_TOT_INS), PAPI_OK);
	TH_EQ(PAPI_set_multiplex(set), PAPI_OK);
	TH_EQ(PAPI_overflow(set, PAPI_TOT_CYC, THRESHOLD, 0, handler), PAPI_ECNFLCT);
	PAPI_cleanup_eventset(set);
	TH_EQ(PAPI_destroy_eventset(&set), PAPI_OK);
	PAPI_shutdown();
	return th_done();
}
