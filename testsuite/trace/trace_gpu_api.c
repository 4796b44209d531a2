/*
 * trace_gpu_api.c - tally_gpu_activity.h's entry points return their
 * documented codes: a NULL consumer is PAPI_EINVAL; without a GPU (no
 * driver: libcupti is not loaded) start is PAPI_ENOSUPP with a detail,
 * flush and stop PAPI_ENOTRUN; with one, start is PAPI_OK (the clock
 * callback or pairs said), a second start PAPI_EISRUN, no records (the
 * program runs nothing on the GPU), flush and stop PAPI_OK, then
 * PAPI_ENOTRUN.  tally_gpu_activity_serialize is PAPI_OK before a start
 * (either way) and PAPI_EISRUN while the API runs (issue 49: the kind is
 * chosen before the start).  tally_gpu_metric_cache_dependent names the
 * DRAM/L2/L1 metrics, with or without cuda:::, and no others (issue 50).
 */
#include <stdio.h>
#include <string.h>

#include "tharness.h"
#include "papi.h"
#include "tally_gpu_activity.h"
#include "tally_gpu.h"
#include "gpu_present.h"

static int calls;

static void consume(const tally_gpu_activity_t *r, size_t n, uint64_t dropped, void *ud)
{
	(void)r;
	(void)dropped;
	(void)ud;
	calls += (int)n;
}

int main(void)
{
	char why[512] = "";
	const char *how = "";
	int gpu;

	TH_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	TH_EQ(tally_gpu_activity_start(NULL, NULL, NULL, &how), PAPI_EINVAL);
	TH_EQ(tally_gpu_metric_cache_dependent("dram__bytes_read.sum"), 1);
	TH_EQ(tally_gpu_metric_cache_dependent("cuda:::lts__t_sectors.sum"), 1);
	TH_EQ(tally_gpu_metric_cache_dependent("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), 1);
	TH_EQ(tally_gpu_metric_cache_dependent("cuda:::smsp__inst_executed.sum"), 0);
	TH_EQ(tally_gpu_metric_cache_dependent("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"), 0);
	TH_EQ(tally_gpu_metric_cache_dependent(NULL), 0);
	TH_EQ(tally_gpu_activity_serialize(1), PAPI_OK);
	TH_EQ(tally_gpu_activity_serialize(0), PAPI_OK);
	gpu = gpu_present(why, sizeof why) > 0;
	if (!gpu) {
		printf("no GPU (%s): the Activity API is not started\n", why);
		TH_EQ(tally_gpu_activity_start(consume, NULL, NULL, &how), PAPI_ENOSUPP);
		TH_EQ(tally_gpu_activity_flush(), PAPI_ENOTRUN);
		TH_EQ(tally_gpu_activity_stop(), PAPI_ENOTRUN);
	} else {
		TH_EQ(tally_gpu_activity_start(consume, NULL, NULL, &how), PAPI_OK);
		printf("started; clock: %s\n", how);
		TH_CHECK(!strcmp(how, "callback") || !strcmp(how, "pairs"));
		TH_EQ(tally_gpu_activity_start(consume, NULL, NULL, &how), PAPI_EISRUN);
		TH_EQ(tally_gpu_activity_serialize(1), PAPI_EISRUN);
		TH_EQ(tally_gpu_activity_flush(), PAPI_OK);
		TH_EQ(tally_gpu_activity_stop(), PAPI_OK);
		TH_EQ(calls, 0);
		TH_EQ(tally_gpu_activity_flush(), PAPI_ENOTRUN);
	}
	PAPI_shutdown();
	return th_done();
}
