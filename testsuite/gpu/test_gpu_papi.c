/*
 * test_gpu_papi.c - cuda::: events next to perf::TASK-CLOCK in one PAPI
 * event set: start/read/accum/reset/stop over the kernels launched
 * between them.  smsp__inst_executed + the FFMA counter need 2 passes on
 * GH100 (CUPTI 13), so the set runs under kernel replay
 * (TALLY_CUDA_REPLAY=kernel); without it such a set gets PAPI_EMULPASS.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tharness.h"
#include "papi.h"
#include "gpu_skip.h"

#define FFMA_PER_KERNEL ((long long)TG_BLOCKS * TG_THREADS * TG_ITERS)

int main(void)
{
	int es = PAPI_NULL, es2 = PAPI_NULL, rc = gpu_test_start();
	long long v[3], w[3], a[3] = { 0, 0, 0 };

	if (rc)
		return rc;
	TH_EQ(PAPI_create_eventset(&es2), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es2, "cuda:::smsp__inst_executed.sum:device=0"), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es2, "cuda:::smsp__sass_thread_inst_executed_op_ffma_pred_on.sum:device=0"),
	      PAPI_EMULPASS);
	TH_EQ(PAPI_cleanup_eventset(es2), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es2), PAPI_OK);
	setenv("TALLY_CUDA_REPLAY", "kernel", 1);
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es, "perf::TASK-CLOCK"), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es, "cuda:::smsp__inst_executed.sum:device=0"), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es, "cuda:::smsp__sass_thread_inst_executed_op_ffma_pred_on.sum:device=0"), PAPI_OK);
	TH_EQ(PAPI_start(es), PAPI_OK);
	TH_EQ(tg_work(TG_BLOCKS, TG_THREADS, TG_ITERS) | tg_work(TG_BLOCKS, TG_THREADS, TG_ITERS) | tg_sync(), 0);
	TH_EQ(PAPI_read(es, v), PAPI_OK);
	printf("after 2 kernels: TASK-CLOCK %lld ns, inst %lld, ffma %lld\n", v[0], v[1], v[2]);
	TH_CHECK(v[0] > 0);
	TH_EQ(v[2], 2 * FFMA_PER_KERNEL);
	TH_EQ(tg_work(TG_BLOCKS, TG_THREADS, TG_ITERS) | tg_sync(), 0);
	TH_EQ(PAPI_read(es, w), PAPI_OK);
	printf("after 3 kernels: TASK-CLOCK %lld ns, inst %lld, ffma %lld\n", w[0], w[1], w[2]);
	TH_EQ(w[2], 3 * FFMA_PER_KERNEL);
	TH_EQ(w[1] * 2, v[1] * 3);        /* same kernels, same instructions */
	TH_CHECK(w[0] >= v[0]);
	TH_EQ(PAPI_accum(es, a), PAPI_OK); /* adds 3 kernels and resets */
	TH_EQ(a[2], 3 * FFMA_PER_KERNEL);
	TH_EQ(tg_work(TG_BLOCKS, TG_THREADS, TG_ITERS) | tg_sync(), 0);
	TH_EQ(PAPI_reset(es), PAPI_OK);
	TH_EQ(tg_work(TG_BLOCKS, TG_THREADS, TG_ITERS) | tg_sync(), 0);
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	printf("after reset + 1 kernel: TASK-CLOCK %lld ns, inst %lld, ffma %lld\n", v[0], v[1], v[2]);
	TH_EQ(v[2], FFMA_PER_KERNEL);
	TH_EQ(v[1] * 3, w[1]);
	/* Kernels launched while stopped are not counted. */
	TH_EQ(tg_work(TG_BLOCKS, TG_THREADS, TG_ITERS) | tg_sync(), 0);
	TH_EQ(PAPI_read(es, w), PAPI_OK);
	TH_EQ(w[2], FFMA_PER_KERNEL);
	es2 = PAPI_NULL;
	TH_EQ(PAPI_create_eventset(&es2), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es2, "cuda:::no_such__metric.sum:device=0"), PAPI_ENOEVNT);
	PAPI_shutdown();
	return th_done();
}
