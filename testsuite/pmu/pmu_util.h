/*
 * pmu_util.h - ground truth for the hardware PMU tests (label `pmu`).
 *
 * The truth is an arm64 loop whose instruction count is known exactly:
 *     cbz  n, 2f        1 instruction
 *  1: subs n, n, #1     2 per iteration
 *     b.ne 1b
 *  2:
 * so pmu_loop(n) retires 2n + 1 user instructions.  Under QEMU with
 * -icount shift=0 the cycle counter advances one per instruction too.
 * A measurement adds a constant of its own (the tail of PAPI_start and
 * the head of PAPI_stop or PAPI_read); tests measure it with n = 0 and
 * subtract it.
 *
 * These tests need a hardware PMU the kernel programs and the arm64
 * loop: elsewhere (x86 CI, VMs) they exit 77 and say why.  The arm64
 * QEMU test bed (testsuite/pmuvm, docs/pmuvm.md) runs them.
 */
#ifndef TALLY_PMU_UTIL_H
#define TALLY_PMU_UTIL_H

#include <stdint.h>
#include <stdio.h>

#include "papi.h"
#include "tharness.h"

#define PMU_LOOP_INS(n) (2 * (long long)(n) + 1)

/* Never inlined nor cloned: profiling tests look pmu_loop up by name. */
#if defined(__GNUC__) && !defined(__clang__)
#define PMU_LOOP_ATTR __attribute__((noipa, unused))
#else
#define PMU_LOOP_ATTR __attribute__((noinline, unused))
#endif

#if defined(__aarch64__)
static PMU_LOOP_ATTR void pmu_loop(uint64_t n)
{
	__asm__ __volatile__("cbz %0, 2f\n"
	                     "1: subs %0, %0, #1\n"
	                     "b.ne 1b\n"
	                     "2:\n"
	                     : "+r"(n) : : "cc");
}
#else
static inline void pmu_loop(uint64_t n) { (void)n; }
#endif

/*
 * Every count a `pmu` test reads passes this check: PAPI_read, PAPI_stop
 * and PAPI_accum below are macros that call the library, then fail the
 * test on any negative value (a wrapped counter).  The check
 * runs after the call returns, so it adds nothing to what is measured.
 */
static inline int pmu_nonneg(int rc, int set, const long long *v, const char *what, const char *file, int line)
{
	int n = PAPI_num_events(set);

	th_checks++;
	for (int i = 0; rc == PAPI_OK && v && i < n; i++)
		if (v[i] < 0) {
			char m[160];

			snprintf(m, sizeof m, "%s: value %d of event set %d is negative (%lld)", what, i, set, v[i]);
			th_fail(file, line, m);
		}
	return rc;
}
#define PAPI_read(s, v) pmu_nonneg((PAPI_read)((s), (v)), (s), (v), "PAPI_read", __FILE__, __LINE__)
#define PAPI_stop(s, v) pmu_nonneg((PAPI_stop)((s), (v)), (s), (v), "PAPI_stop", __FILE__, __LINE__)
#define PAPI_accum(s, v) pmu_nonneg((PAPI_accum)((s), (v)), (s), (v), "PAPI_accum", __FILE__, __LINE__)

/* PAPI_library_init, then skip unless PAPI_TOT_INS and PAPI_TOT_CYC
 * count here and the known-count loop exists for this architecture. */
static inline void pmu_require(void)
{
	int rc = PAPI_library_init(PAPI_VER_CURRENT);

	if (rc != PAPI_VER_CURRENT) {
		printf("PAPI_library_init: %d\n", rc);
		TH_FATAL("the library does not initialise here");
	}
#if !defined(__aarch64__)
	TH_SKIP("the known-count loops are arm64 code: run in the arm64 QEMU test bed (testsuite/pmuvm/run.sh)");
#endif
	if (PAPI_query_event(PAPI_TOT_INS) != PAPI_OK || PAPI_query_event(PAPI_TOT_CYC) != PAPI_OK)
		TH_SKIP("no hardware PMU here: PAPI_TOT_INS/PAPI_TOT_CYC are not countable "
		        "(run in the arm64 QEMU test bed, testsuite/pmuvm/run.sh)");
}

/* Events counted over pmu_loop(n) between PAPI_start and PAPI_stop.
 * Never inlined: the instructions between PAPI_start's return and
 * PAPI_stop's call must be the same code at every call site. */
static PMU_LOOP_ATTR int pmu_measure(int set, uint64_t n, long long *vals)
{
	int rc = PAPI_start(set);

	if (rc != PAPI_OK)
		return rc;
	pmu_loop(n);
	return PAPI_stop(set, vals);
}

#endif /* TALLY_PMU_UTIL_H */
