/*
 * test_pmu_hwinfo.c - PAPI_get_hardware_info's MHz where the system
 * publishes none, and overflow thresholds derived from it.
 *
 * The guest has no cpufreq and no "cpu MHz" line (only BogoMIPS, the
 * timer's rate): the figure must be measured, not 0.  Truth: PAPI_TOT_CYC
 * over pmu_loop(10^7) divided by CLOCK_MONOTONIC over the same loop
 * (1000 MHz under QEMU -icount shift=0, one cycle per virtual ns); the
 * reported figure must be within 5%.  papi_avail (argv[1]) must say where
 * the figure came from.
 *
 * Programs written for PAPI set threshold = mhz * 20000; that threshold
 * must arm an overflow that fires once per 2*10^7 cycles (hardware, with
 * PAPI_OVERFLOW_FORCE_SW, and in a second thread).  A threshold of 0 is
 * answered as PAPI 7 does: PAPI_EINVAL on an event with no overflow set,
 * PAPI_OK when it clears one (which can then be set again).
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "pmu_util.h"
#include "th_spawn.h"
#include "tally.h"
#include "th_clock.h"

#define LOOP_N 50000000ull /* 10^8 instructions = cycles */

static _Thread_local int calls;

static void handler(int set, void *addr, long long vector, void *ctx)
{
	(void)set;
	(void)addr;
	(void)vector;
	(void)ctx;
	calls++;
}

static double measured_mhz(void)
{
	int set = PAPI_NULL;
	long long v[1], t0, t1;

	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_add_event(set, PAPI_TOT_CYC), PAPI_OK);
	TH_EQ(PAPI_start(set), PAPI_OK);
	t0 = (long long)th_now_ns();
	pmu_loop(5000000);
	t1 = (long long)th_now_ns();
	TH_EQ(PAPI_stop(set, v), PAPI_OK);
	PAPI_cleanup_eventset(set);
	PAPI_destroy_eventset(&set);
	return t1 > t0 ? (double)v[0] * 1000.0 / (double)(t1 - t0) : 0.0;
}

static void check_avail(const char *avail)
{
	char line[512];
	char *argv[] = { (char *)avail, NULL };
	int found = 0;
	pid_t pid;
	FILE *p = th_spawn_read(argv, &pid);

	TH_CHECK(p != NULL);
	if (!p)
		return;
	while (fgets(line, sizeof line, p))
		if (strstr(line, "CPU max / min MHz")) {
			printf("papi_avail: %s", line);
			found = strstr(line, "(measured") != NULL;
		}
	TH_EQ(th_spawn_wait(p, pid), 0);
	TH_CHECK(found);
}

/* threshold = mhz * 20000 over 10^8 cycles: 5 calls (one more or less
 * for where the boundaries fall; software overflow checks on a timer) */
static int overflow_calls(int threshold, int flags)
{
	int set = PAPI_NULL, rc;
	long long v[2];

	calls = 0;
	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_add_event(set, PAPI_TOT_CYC), PAPI_OK);
	TH_EQ(PAPI_add_event(set, PAPI_TOT_INS), PAPI_OK);
	/* threshold 0 on an event with no overflow set: PAPI_EINVAL */
	TH_EQ(PAPI_overflow(set, PAPI_TOT_CYC, 0, flags, handler), PAPI_EINVAL);
	rc = PAPI_overflow(set, PAPI_TOT_CYC, threshold, flags, handler);
	TH_EQ(rc, PAPI_OK);
	TH_EQ(PAPI_overflow(set, PAPI_TOT_INS, 0, flags, handler), PAPI_EINVAL);
	/* clear, set again */
	TH_EQ(PAPI_overflow(set, PAPI_TOT_CYC, 0, flags, handler), PAPI_OK);
	TH_EQ(PAPI_overflow(set, PAPI_TOT_CYC, 0, flags, handler), PAPI_EINVAL);
	TH_EQ(PAPI_overflow(set, PAPI_TOT_CYC, threshold, flags, handler), PAPI_OK);
	if (rc == PAPI_OK && PAPI_start(set) == PAPI_OK) {
		pmu_loop(LOOP_N);
		TH_EQ(PAPI_stop(set, v), PAPI_OK);
		TH_CHECK(v[1] >= 2 * (long long)LOOP_N);
	}
	PAPI_overflow(set, PAPI_TOT_CYC, 0, flags, handler);
	PAPI_cleanup_eventset(set);
	PAPI_destroy_eventset(&set);
	return calls;
}

static int g_threshold;

static void *thread_main(void *arg)
{
	int *out = arg;

	*out = overflow_calls(g_threshold, 0);
	return NULL;
}

int main(int argc, char **argv)
{
	const PAPI_hw_info_t *hw;
	double truth;
	int n;

	pmu_require();
	TH_EQ(PAPI_thread_init(pthread_self), PAPI_OK);
	hw = PAPI_get_hardware_info();
	TH_CHECK(hw != NULL);
	if (!hw)
		return th_done();
	truth = measured_mhz();
	printf("cpu_max_mhz %d, cpu_min_mhz %d, mhz %.1f (%s); cycles over time: %.1f MHz\n", hw->cpu_max_mhz,
	       hw->cpu_min_mhz, (double)hw->mhz, tally_hw_mhz_source(), truth);
	TH_CHECK(hw->cpu_max_mhz > 0);
	TH_NEAR(hw->cpu_max_mhz, truth, 0.05);
	TH_NEAR(hw->mhz, truth, 0.05);
	if (argc > 1)
		check_avail(argv[1]);
	g_threshold = hw->cpu_max_mhz * 20000;
	if (g_threshold <= 0)
		return th_done();
	n = overflow_calls(g_threshold, 0);
	printf("threshold %d: %d handler calls (hardware)\n", g_threshold, n);
	TH_CHECK(n >= 4 && n <= 6);
	n = overflow_calls(g_threshold, PAPI_OVERFLOW_FORCE_SW);
	printf("threshold %d: %d handler calls (PAPI_OVERFLOW_FORCE_SW)\n", g_threshold, n);
	TH_CHECK(n >= 4 && n <= 6);
	pthread_t t;
	int tn = -1;

	TH_EQ(pthread_create(&t, NULL, thread_main, &tn), 0);
	pthread_join(t, NULL);
	printf("threshold %d: %d handler calls (second thread)\n", g_threshold, tn);
	TH_CHECK(tn >= 4 && tn <= 6);
	PAPI_shutdown();
	return th_done();
}
