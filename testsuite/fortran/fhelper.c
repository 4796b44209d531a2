/*
 * fhelper.c - ground truth for the Fortran tests, from the C side: the
 * kernel's own counts (getrusage, CLOCK_THREAD_CPUTIME_ID) and the C API's
 * answers that a binding must reproduce.
 */
#define _GNU_SOURCE 1 /* RUSAGE_THREAD */
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"
#include "tharness.h"

long long tft_minflt(void);
double tft_clock_tol(long long cpu_ns);
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

/* Relative tolerance for perf::TASK-CLOCK against thread CPU time over a
 * window of cpu_ns: the shared rule of testsuite/harness/tharness.h
 * (5% or 3 ms either way; no steal allowance: the Fortran side has no
 * window to measure the thread's own extra time over). */
double tft_clock_tol(long long cpu_ns)
{
	return cpu_ns > 0 ? th_clock_tolerance((double)cpu_ns) / (double)cpu_ns : 0.05;
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
