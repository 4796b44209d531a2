/*
 * bench_gpu_hook.c - the host cost of Tally's CUPTI launch callback (issue
 * 38.5), no GPU needed: the subscriber's callback (tly_cu_cb_dispatch) is
 * called as CUPTI calls it, at the entry and the exit of cuLaunchKernel,
 * with made-up callback data: 25 kernels with PyTorch-sized mangled names
 * (about 1 kB), launched in turn, 200,000 launches.  The baseline, in the
 * same run, is what a bare CUPTI tool does per callback (bare_cupti.c: a
 * lock and a count).  Without a GPU the runtime's hook is not set and
 * nothing is profiled, so this is the component's own part (names, locks,
 * the L2-flush and range-refill checks, PC sampling's note); the runtime's
 * part needs the device run (bench_torch_loop).  Prints ns per launch and
 * the ratio; no verdict (label bench).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "components/cuda/common/cuda_internal.h"

#define NK 25
#define LAUNCHES 200000
#define ROUNDS 5

static pthread_mutex_t bare_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long bare_count;

/* bare_cupti.c's work per callback. */
static void __attribute__((noinline)) bare(CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
	const CUpti_CallbackData *cd = data;

	if (dom != CUPTI_CB_DOMAIN_DRIVER_API || id != CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel ||
	    cd->callbackSite != CUPTI_API_ENTER)
		return;
	pthread_mutex_lock(&bare_lock);
	bare_count++;
	pthread_mutex_unlock(&bare_lock);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ns per launch (entry + exit) of fn over LAUNCHES launches. */
static double run(void (*fn)(CUpti_CallbackDomain, CUpti_CallbackId, const void *), char **sym)
{
	cuLaunchKernel_params p = { 0 };
	uint64_t corr = 0;
	CUpti_CallbackData cd = { .functionParams = &p, .context = (CUcontext)&p, .contextUid = 7,
				  .correlationData = &corr };
	double t0 = now_ns();

	for (int i = 0; i < LAUNCHES; i++) {
		cd.symbolName = sym[i % NK];
		cd.correlationId = (uint32_t)i;
		cd.callbackSite = CUPTI_API_ENTER;
		fn(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cd);
		cd.callbackSite = CUPTI_API_EXIT;
		fn(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, &cd);
	}
	return (now_ns() - t0) / LAUNCHES;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	char *sym[NK];
	double tb[ROUNDS], tt[ROUNDS];
	const char *why = "";

	tly_cu_discover(&why);   /* the demangler when libcupti loads; the bench runs without it too */
	for (int k = 0; k < NK; k++) {
		size_t len = 1000 + 10 * (size_t)k;

		sym[k] = malloc(len + 1);
		if (!sym[k])
			return 1;
		/* one long template argument list, as PyTorch's elementwise kernels */
		snprintf(sym[k], len + 1, "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_%02dFunctorIfEE", k);
		for (size_t i = strlen(sym[k]); i < len; i++)
			sym[k][i] = "ZN2at6native"[i % 12];
		sym[k][len] = '\0';
	}
	run(tly_cu_cb_dispatch, sym);   /* names demangled and cached once */
	for (int r = 0; r < ROUNDS; r++) {
		tb[r] = run(bare, sym);
		tt[r] = run(tly_cu_cb_dispatch, sym);
	}
	qsort(tb, ROUNDS, sizeof tb[0], cmp);
	qsort(tt, ROUNDS, sizeof tt[0], cmp);
	printf("host cost per launch (entry + exit callbacks), median of %d x %d launches:\n", ROUNDS, LAUNCHES);
	printf("  bare CUPTI tool's work  %8.1f ns\n", tb[ROUNDS / 2]);
	printf("  Tally's callback        %8.1f ns  (%.1fx; the runtime's hook and the GPU not included)\n",
	       tt[ROUNDS / 2], tt[ROUNDS / 2] / tb[ROUNDS / 2]);
	printf("bare callbacks counted: %llu (expected %llu)\n", bare_count, (unsigned long long)ROUNDS * LAUNCHES);
	for (int k = 0; k < NK; k++)
		free(sym[k]);
	tly_cu_cb_shutdown();
	return bare_count == (unsigned long long)ROUNDS * LAUNCHES ? 0 : 1;
}
