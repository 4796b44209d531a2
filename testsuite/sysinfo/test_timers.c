/*
 * test_timers.c - PAPI_get_{real,virt}_{nsec,usec,cyc} against
 * clock_gettime over a 200 ms sleep and a 200 ms busy loop, monotonicity,
 * and the per-thread nature of the virtual clocks.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* realpath, dladdr, clock_gettime, PATH_MAX */
#endif
#include <pthread.h>
#include <time.h>

#include "papi.h"
#include "tharness.h"

static long long ts_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&t, &t) != 0)
		;
}

/* Real clocks over a sleep; the cycle counter converts with clock_mhz. */
static void check_real(double mhz)
{
	long long m0 = ts_ns(CLOCK_MONOTONIC), n0 = PAPI_get_real_nsec();
	long long u0 = PAPI_get_real_usec(), c0 = PAPI_get_real_cyc();
	long long t0 = ts_ns(CLOCK_THREAD_CPUTIME_ID), v0 = PAPI_get_virt_nsec(), m1, n1, u1, c1, v1, t1;

	sleep_ms(200);
	m1 = ts_ns(CLOCK_MONOTONIC);
	n1 = PAPI_get_real_nsec();
	u1 = PAPI_get_real_usec();
	c1 = PAPI_get_real_cyc();
	v1 = PAPI_get_virt_nsec();
	t1 = ts_ns(CLOCK_THREAD_CPUTIME_ID);
	TH_NEAR(n1 - n0, m1 - m0, 0.02);
	TH_NEAR(u1 - u0, (m1 - m0) / 1000.0, 0.02);
	if (mhz > 0)
		TH_NEAR((c1 - c0) / mhz, (n1 - n0) / 1000.0, 0.02);
	/* Sleeping costs (almost) no CPU time: the virtual clock says no more
	 * than the thread's own CPU clock around the same calls, and far less
	 * than the wall time slept (a wall clock would read all of it). */
	TH_CHECK(v1 - v0 >= 0 && v1 - v0 <= t1 - t0);
	TH_CHECK(v1 - v0 < (m1 - m0) / 10);
}

/* Virtual clocks over a busy loop equal the thread's CPU time. */
static void check_virt(double mhz)
{
	long long t0 = ts_ns(CLOCK_THREAD_CPUTIME_ID), u0 = PAPI_get_virt_usec();
	long long n0 = PAPI_get_virt_nsec(), c0 = PAPI_get_virt_cyc(), t1, u1, n1, c1;

	th_spin_cpu_ns(200 * 1000000LL);
	c1 = PAPI_get_virt_cyc();
	n1 = PAPI_get_virt_nsec();
	u1 = PAPI_get_virt_usec();
	t1 = ts_ns(CLOCK_THREAD_CPUTIME_ID);
	TH_NEAR(u1 - u0, (t1 - t0) / 1000.0, 0.02);
	TH_NEAR(n1 - n0, t1 - t0, 0.02);
	if (mhz > 0)
		TH_NEAR((c1 - c0) / mhz, (n1 - n0) / 1000.0, 0.02);
}

static void check_monotonic(void)
{
	long long pn = PAPI_get_real_nsec(), pu = PAPI_get_real_usec();
	long long pc = PAPI_get_real_cyc(), pv = PAPI_get_virt_nsec();
	int bad = 0;

	for (int i = 0; i < 200000; i++) {
		long long n = PAPI_get_real_nsec(), u = PAPI_get_real_usec();
		long long c = PAPI_get_real_cyc(), v = PAPI_get_virt_nsec();

		bad += n < pn || u < pu || c < pc || v < pv;
		pn = n, pu = u, pc = c, pv = v;
	}
	TH_EQ(bad, 0);
}

/* The sleeper's virtual clock over its sleep ([0]) and its own CPU clock
 * around the same calls ([1]), both in us. */
static void *sleeper(void *arg)
{
	long long *used = arg, t0 = ts_ns(CLOCK_THREAD_CPUTIME_ID), v0 = PAPI_get_virt_usec();

	sleep_ms(200);
	used[0] = PAPI_get_virt_usec() - v0;
	used[1] = (ts_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / 1000;
	return NULL;
}

/* While this thread spins, a sleeping thread's virtual clock stands still:
 * it reads what the sleeper's own CPU clock says of the same span (no
 * more: its calls lie inside that span), far below the 150 ms the spinner
 * uses meanwhile (a process-wide clock would read them). */
static void check_per_thread(void)
{
	pthread_t t;
	long long used[2] = { -1, -1 }, v0 = PAPI_get_virt_usec();

	TH_EQ(pthread_create(&t, NULL, sleeper, used), 0);
	th_spin_cpu_ns(150 * 1000000LL);
	pthread_join(t, NULL);
	TH_CHECK(used[0] >= 0 && used[0] <= used[1] + 1);
	TH_CHECK(used[0] < 15000);
	TH_CHECK(PAPI_get_virt_usec() - v0 >= 150000);
}

int main(void)
{
	const PAPI_hw_info_t *hw;

	/* The clocks work before PAPI_library_init. */
	check_real(0.0);
	check_monotonic();
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init failed");
	hw = PAPI_get_hardware_info();
	TH_CHECK(hw != NULL && hw->clock_mhz > 0);
	if (hw) {
		check_real(hw->clock_mhz);
		check_virt(hw->clock_mhz);
	}
	check_per_thread();
	PAPI_shutdown();
	return th_done();
}
