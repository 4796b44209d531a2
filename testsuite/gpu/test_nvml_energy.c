/*
 * test_nvml_energy.c - GPU energy through the nvml component over a
 * kernel loop of TNE_SECONDS (default 5) seconds.  Prints the loop's
 * window (CLOCK_REALTIME) and what PAPI read, for check_nvml_energy.py,
 * which compares it with nvidia-smi's power readings integrated over the
 * same window (run_nvml_energy.sh).  Checks here: the set reads, power is
 * above idle and below the limit, temperature and SM clock are plausible.
 * Skips only without a driver or GPU.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tharness.h"
#include "papi.h"
#include "gpu_kernels.h"
#include "gpu_present.h"

static const char *const events[] = {
	"nvml:::energy:device=0", "nvml:::power:device=0", "nvml:::power_limit:device=0",
	"nvml:::temperature:device=0", "nvml:::sm_clock:device=0",
};
#define NE 5

static double now(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Kernels of ~10 ms back to back for `secs` seconds; returns launches. */
static long loop(double secs)
{
	double t0 = now(CLOCK_MONOTONIC);
	long n = 0;

	while (now(CLOCK_MONOTONIC) - t0 < secs) {
		if (tg_work(TG_BLOCKS, TG_THREADS, 20000) != 0 || tg_sync() != 0)
			TH_FATAL("kernel launch failed");
		n++;
	}
	return n;
}

int main(void)
{
	char why[512] = "";
	const char *s = getenv("TNE_SECONDS");
	double secs = s ? atof(s) : 5.0, t0, t1;
	long long v[NE] = { 0 };
	int es = PAPI_NULL, gpu = gpu_present(why, sizeof why);
	long n;

	if (gpu == 0)
		TH_SKIP(why);
	if (gpu < 0 || PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL(gpu < 0 ? why : "PAPI_library_init failed");
	if (tg_init((size_t)TG_BLOCKS * TG_THREADS, 1 << 20) < 0)
		TH_FATAL("no usable GPU for the test kernels");
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	for (int i = 0; i < NE; i++)
		TH_EQ(PAPI_add_named_event(es, events[i]), PAPI_OK);
	loop(1.0);   /* warm up: clocks and power settle */
	t0 = now(CLOCK_REALTIME);
	TH_EQ(PAPI_start(es), PAPI_OK);
	n = loop(secs);
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	t1 = now(CLOCK_REALTIME);
	printf("NVML_WINDOW %.6f %.6f\n", t0, t1);
	printf("NVML_ENERGY_MJ %lld\n", v[0]);
	printf("launches %ld, mean power %.1f W, power now %.1f W, limit %.1f W, %lld C, SM clock %lld MHz\n", n,
	       v[0] / (t1 - t0) / 1000.0, v[1] / 1000.0, v[2] / 1000.0, v[3], v[4]);
	TH_CHECK(v[0] > 0);
	TH_CHECK(v[0] / (t1 - t0) > 1.5 * 1000 * 50);       /* a busy H100 draws well over 75 W */
	TH_CHECK(v[0] / (t1 - t0) <= 1.05 * (double)v[2]);  /* and not above its limit */
	TH_CHECK(v[3] > 15 && v[3] < 100);
	TH_CHECK(v[4] > 300 && v[4] < 3000);
	return th_done();
}
