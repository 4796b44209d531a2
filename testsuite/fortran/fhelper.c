/*
 * fhelper.c - ground truth for the Fortran tests, from the C side: the
 * kernel's own counts (getrusage, CLOCK_THREAD_CPUTIME_ID) and the C API's
 * answers that a binding must reproduce.
 */
#define _GNU_SOURCE 1 /* RUSAGE_THREAD */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"
#include "tharness.h"

long long tft_minflt(void);
void tft_clock_begin(void);
int tft_near_clock(long long counted, long long cpu_ns);
long long tft_thread_cpu_ns(void);
long long tft_pagesize(void);
int tft_c_epc(int event);
void tft_c_hwinfo(int *ints, float *mhz, char *vendor, char *model);
int tft_c_strerror(int code, char *buf, int len);

/* Minor page faults of the calling thread so far. */
long long tft_minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}

long long tft_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Open the calling thread's clock window (th_clock_begin): where the
 * measured window starts, in the thread that checks it. */
void tft_clock_begin(void)
{
	th_clock_begin();
}

/* TH_NEAR_CLOCK's rule (tharness.h) for the Fortran side: perf::TASK-CLOCK
 * within [cpu - tol, cpu + tol + the calling thread's own extra time since
 * its tft_clock_begin] (steal, interrupts: th_clock.h).  1 when it holds;
 * else 0, with the bounds on stderr. */
int tft_near_clock(long long counted, long long cpu_ns)
{
	double x = th_clock_allowance_ns(), tol = th_clock_tolerance((double)cpu_ns);

	if (th_clock_near((double)counted, (double)cpu_ns, x))
		return 1;
	fprintf(stderr, "  TASK-CLOCK %lld not in [%.0f, %.0f] (thread CPU %lld ns, own extra time %.0f ns)\n",
		counted, (double)cpu_ns - tol, (double)cpu_ns + tol + x, cpu_ns, x);
	return 0;
}

long long tft_pagesize(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* What PAPI_epc answers here for `event` (stopping what it started). */
int tft_c_epc(int event)
{
	float rt, pt, epc;
	long long ref, core, evt;
	int rc = PAPI_epc(event, &rt, &pt, &ref, &core, &evt, &epc);

	if (rc == PAPI_OK)
		PAPI_rate_stop();
	return rc;
}

/* ints: ncpu, nnodes, totalcpus, vendor, model; strings of 128 bytes. */
void tft_c_hwinfo(int *ints, float *mhz, char *vendor, char *model)
{
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();

	ints[0] = hw->ncpu;
	ints[1] = hw->nnodes;
	ints[2] = hw->totalcpus;
	ints[3] = hw->vendor;
	ints[4] = hw->model;
	*mhz = hw->mhz;
	memcpy(vendor, hw->vendor_string, PAPI_MAX_STR_LEN);
	memcpy(model, hw->model_string, PAPI_MAX_STR_LEN);
}

/* The 3.5 perror text of `code`, NUL-terminated. */
int tft_c_strerror(int code, char *buf, int len)
{
	return tally_papi35_perror(code, buf, len);
}
