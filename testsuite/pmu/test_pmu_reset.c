/*
 * test_pmu_reset.c - PAPI_reset, PAPI_read, PAPI_accum and PAPI_write on
 * a running set {PAPI_TOT_CYC, PAPI_TOT_INS}, also after start/stop
 * cycles.
 *
 * Each sequence is run with pmu_loop(n) and with pmu_loop(0); the
 * difference must be exactly 2n for both events (under QEMU -icount
 * shift=0 a cycle is an instruction).  The arm counters are 32 bits and
 * the kernel starts them at 2^31 + 1: a user-space read after a reset
 * that sign-extends them as the perf ABI describes, without minding that
 * the reset leaves the page relative to the raw counter, read
 * n - 2^32, which the negative-value check of pmu_util.h and
 * the exact differences catch.
 */
#include "pmu_util.h"

#define N_SHORT 2000000ull    /* 4*10^6 instructions */
#define N_LONG 85000000ull    /* 1.7*10^8 */

typedef void (*seq_fn)(int set, uint64_t n, long long *v);

/* reset after some work, then read */
static void reset_read(int set, uint64_t n, long long *v)
{
	TH_EQ(PAPI_start(set), PAPI_OK);
	pmu_loop(1000);
	TH_EQ(PAPI_reset(set), PAPI_OK);
	pmu_loop(n);
	TH_EQ(PAPI_read(set, v), PAPI_OK);
	TH_EQ(PAPI_stop(set, NULL), PAPI_OK);
}

/* the same after two start/stop cycles, stopping with the values */
static void cycles_reset_stop(int set, uint64_t n, long long *v)
{
	long long w[2];

	for (int k = 0; k < 2; k++) {
		TH_EQ(PAPI_start(set), PAPI_OK);
		pmu_loop(5000);
		TH_EQ(PAPI_stop(set, w), PAPI_OK);
	}
	TH_EQ(PAPI_start(set), PAPI_OK);
	pmu_loop(300);
	TH_EQ(PAPI_reset(set), PAPI_OK);
	pmu_loop(n);
	TH_EQ(PAPI_stop(set, v), PAPI_OK);
}

/* two resets, each followed by the work: the second read holds one */
static void reset_twice(int set, uint64_t n, long long *v)
{
	TH_EQ(PAPI_start(set), PAPI_OK);
	TH_EQ(PAPI_reset(set), PAPI_OK);
	pmu_loop(n);
	TH_EQ(PAPI_reset(set), PAPI_OK);
	pmu_loop(n);
	TH_EQ(PAPI_read(set, v), PAPI_OK);
	TH_EQ(PAPI_stop(set, NULL), PAPI_OK);
}

/* PAPI_accum after a reset: adds the counts, resets */
static void reset_accum(int set, uint64_t n, long long *v)
{
	v[0] = v[1] = 0;
	TH_EQ(PAPI_start(set), PAPI_OK);
	pmu_loop(700);
	TH_EQ(PAPI_reset(set), PAPI_OK);
	TH_EQ(PAPI_accum(set, v), PAPI_OK);
	pmu_loop(n);
	TH_EQ(PAPI_accum(set, v), PAPI_OK);
	TH_EQ(PAPI_stop(set, NULL), PAPI_OK);
}

/* PAPI_write after a reset, then read: the written value plus the work */
static void reset_write_read(int set, uint64_t n, long long *v)
{
	long long w[2] = { 1000000000LL, 5 };

	TH_EQ(PAPI_start(set), PAPI_OK);
	pmu_loop(100);
	TH_EQ(PAPI_reset(set), PAPI_OK);
	TH_EQ(PAPI_write(set, w), PAPI_OK);
	pmu_loop(n);
	TH_EQ(PAPI_read(set, v), PAPI_OK);
	TH_EQ(PAPI_stop(set, NULL), PAPI_OK);
	v[0] -= w[0];
	v[1] -= w[1];
}

static void check_seq(int set, seq_fn f, const char *name, uint64_t n, int line)
{
	long long c[2], v[2];

	th_at(line);
	f(set, 0, c); /* warm up: the first call of an entry point binds it */
	f(set, 0, c);
	f(set, n, v);
	printf("%-18s n=%-9llu cycles %lld - %lld, instructions %lld - %lld (expected 2n = %lld)\n", name,
	       (unsigned long long)n, v[0], c[0], v[1], c[1], 2 * (long long)n);
	TH_EQ(v[0] - c[0], 2 * (long long)n);
	TH_EQ(v[1] - c[1], 2 * (long long)n);
	TH_CHECK(c[0] >= 0 && c[0] < 5000 && c[1] >= 0 && c[1] < 5000);
}

int main(void)
{
	int set = PAPI_NULL;
	long long v[2];

	pmu_require();
	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_add_event(set, PAPI_TOT_CYC), PAPI_OK);
	TH_EQ(PAPI_add_event(set, PAPI_TOT_INS), PAPI_OK);
	reset_read(set, 1000, v); /* warm up: page faults, lazy binding */
	check_seq(set, reset_read, "reset, read", N_LONG, __LINE__);
	check_seq(set, reset_read, "reset, read", N_SHORT, __LINE__);
	check_seq(set, cycles_reset_stop, "cycles, reset, stop", N_SHORT, __LINE__);
	check_seq(set, reset_twice, "reset twice, read", N_SHORT, __LINE__);
	check_seq(set, reset_accum, "reset, accum", N_SHORT, __LINE__);
	check_seq(set, reset_write_read, "reset, write, read", N_SHORT, __LINE__);
	/* stopped: a reset zeroes what PAPI_read returns */
	TH_EQ(PAPI_reset(set), PAPI_OK);
	TH_EQ(PAPI_read(set, v), PAPI_OK);
	TH_EQ(v[0], 0);
	TH_EQ(v[1], 0);
	PAPI_cleanup_eventset(set);
	TH_EQ(PAPI_destroy_eventset(&set), PAPI_OK);
	PAPI_shutdown();
	return th_done();
}
