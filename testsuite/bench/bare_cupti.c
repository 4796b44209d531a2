/*
 * bare_cupti.c - the floor under per-kernel GPU metrics (issue 38.5): a
 * preload library doing only what any CUPTI profiler of per-kernel values
 * must, the way Tally does it: subscribe, enable the driver API's kernel
 * launch callbacks; at a context's first launch enable the Range Profiler
 * on it (config image of one metric from the Profiler Host API, AutoRange,
 * kernel replay when the metric needs several passes, user replay else,
 * BARE_CUPTI_RANGES ranges per counter data image: Tally's default, 16);
 * when the image is full, at the next launch: synchronise, stop, decode
 * and start again.  No attribution, no names, no evaluation, no cache
 * flush.  At exit it decodes the last image and prints on stderr
 *   bare-cupti: launches L ranges R refills F passes P
 * so the benchmark can check it collected every kernel (R == L).
 * BARE_CUPTI_METRIC: the metric (smsp__inst_executed.sum).
 * Used by bench_torch_loop.sh with LD_PRELOAD.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#define MAX_CTX 16

struct bare_ctx {
	CUcontext ctx;
	CUpti_RangeProfiler_Object *obj;
	uint8_t *cdata;
	size_t cdata_size;
	size_t launched;   /* kernels in the current image */
	int running;
};

static struct {
	pthread_mutex_t lock;
	CUpti_SubscriberHandle sub;
	const char *metric;
	size_t ranges;
	uint8_t *cfg;
	size_t cfg_size, passes;
	struct bare_ctx c[MAX_CTX];
	int n, failed;
	unsigned long long launches, decoded, refills;
} B = { .lock = PTHREAD_MUTEX_INITIALIZER };

#define OK(call) ok_((call), #call)
static int ok_(CUptiResult r, const char *what)
{
	const char *s = "?";

	if (r == CUPTI_SUCCESS)
		return 1;
	cuptiGetResultString(r, &s);
	fprintf(stderr, "bare-cupti: %s: %s\n", what, s);
	B.failed = 1;
	return 0;
}

/* The config image of B.metric for the chip of ctx's device. */
static int config(void)
{
	CUpti_Device_GetChipName_Params cp = { .structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE };
	CUpti_Profiler_Host_Initialize_Params hi = { .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE };
	CUpti_Profiler_Host_ConfigAddMetrics_Params am = {
		.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE };
	CUpti_Profiler_Host_GetConfigImageSize_Params is = {
		.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE };
	CUpti_Profiler_Host_GetConfigImage_Params gi = {
		.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE };
	CUpti_Profiler_Host_GetNumOfPasses_Params np = {
		.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE };
	CUdevice d;

	if (cuCtxGetDevice(&d) != CUDA_SUCCESS) {
		fprintf(stderr, "bare-cupti: cuCtxGetDevice failed in a launch callback\n");
		B.failed = 1;
		return 0;
	}
	cp.deviceIndex = (size_t)d;
	if (!OK(cuptiDeviceGetChipName(&cp)))
		return 0;
	hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	hi.pChipName = cp.pChipName;
	if (!OK(cuptiProfilerHostInitialize(&hi)))
		return 0;
	am.pHostObject = hi.pHostObject;
	am.ppMetricNames = &B.metric;
	am.numMetrics = 1;
	is.pHostObject = hi.pHostObject;
	if (!OK(cuptiProfilerHostConfigAddMetrics(&am)) || !OK(cuptiProfilerHostGetConfigImageSize(&is)))
		return 0;
	B.cfg_size = is.configImageSize;
	B.cfg = calloc(1, B.cfg_size);
	gi.pHostObject = hi.pHostObject;
	gi.configImageSize = B.cfg_size;
	gi.pConfigImage = B.cfg;
	if (!B.cfg || !OK(cuptiProfilerHostGetConfigImage(&gi)))
		return 0;
	np.configImageSize = B.cfg_size;
	np.pConfigImage = B.cfg;
	if (!OK(cuptiProfilerHostGetNumOfPasses(&np)))
		return 0;
	B.passes = np.numOfPasses;
	return 1;
}

/* Initialise the image, set the config, start. */
static int arm(struct bare_ctx *c)
{
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip = {
		.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_SetConfig_Params sc = { .structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_Start_Params st = { .structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE };

	ip.pRangeProfilerObject = c->obj;
	ip.counterDataSize = c->cdata_size;
	ip.pCounterData = c->cdata;
	sc.pRangeProfilerObject = c->obj;
	sc.configSize = B.cfg_size;
	sc.pConfig = B.cfg;
	sc.counterDataImageSize = c->cdata_size;
	sc.pCounterDataImage = c->cdata;
	sc.range = CUPTI_AutoRange;
	sc.replayMode = B.passes > 1 ? CUPTI_KernelReplay : CUPTI_UserReplay;
	sc.maxRangesPerPass = B.ranges;
	sc.numNestingLevels = 1;
	sc.minNestingLevel = 1;
	sc.targetNestingLevel = 1;
	st.pRangeProfilerObject = c->obj;
	c->running = OK(cuptiRangeProfilerCounterDataImageInitialize(&ip)) && OK(cuptiRangeProfilerSetConfig(&sc)) &&
		     OK(cuptiRangeProfilerStart(&st));
	c->launched = 0;
	return c->running;
}

/* Stop and decode; the ranges the image holds are counted. */
static void stop_decode(struct bare_ctx *c)
{
	CUpti_RangeProfiler_Stop_Params sp = { .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_DecodeData_Params dp = { .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_GetCounterDataInfo_Params gi = {
		.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE };

	if (!c->running)
		return;
	c->running = 0;
	cuCtxSynchronize();
	sp.pRangeProfilerObject = c->obj;
	dp.pRangeProfilerObject = c->obj;
	gi.pCounterDataImage = c->cdata;
	gi.counterDataImageSize = c->cdata_size;
	if (OK(cuptiRangeProfilerStop(&sp)) && OK(cuptiRangeProfilerDecodeData(&dp)) &&
	    OK(cuptiRangeProfilerGetCounterDataInfo(&gi)))
		B.decoded += gi.numTotalRanges;
}

static void at_exit(void)
{
	pthread_mutex_lock(&B.lock);
	for (int i = 0; i < B.n; i++)
		if (B.c[i].running && cuCtxPushCurrent(B.c[i].ctx) == CUDA_SUCCESS) {
			CUcontext dummy;

			stop_decode(&B.c[i]);
			cuCtxPopCurrent(&dummy);
		}
	fprintf(stderr, "bare-cupti: launches %llu ranges %llu refills %llu passes %zu%s\n", B.launches, B.decoded,
		B.refills, B.passes, B.failed ? " (a CUPTI call failed)" : "");
	pthread_mutex_unlock(&B.lock);
}

/* ctx's session, enabled and started at its first launch (ctx current). */
static struct bare_ctx *session(CUcontext ctx)
{
	CUpti_RangeProfiler_Enable_Params ep = { .structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_GetCounterDataSize_Params sp = {
		.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE };
	struct bare_ctx *c;

	for (int i = 0; i < B.n; i++)
		if (B.c[i].ctx == ctx)
			return &B.c[i];
	if (B.n == MAX_CTX || B.failed || (!B.cfg && !config()))
		return NULL;
	if (B.n == 0)
		atexit(at_exit);   /* after the CUDA runtime's: the context still lives */
	c = &B.c[B.n++];
	c->ctx = ctx;
	ep.ctx = ctx;
	if (!OK(cuptiRangeProfilerEnable(&ep)))
		return NULL;
	c->obj = ep.pRangeProfilerObject;
	sp.pRangeProfilerObject = c->obj;
	sp.pMetricNames = &B.metric;
	sp.numMetrics = 1;
	sp.maxNumOfRanges = B.ranges;
	sp.maxNumRangeTreeNodes = (uint32_t)B.ranges;
	if (!OK(cuptiRangeProfilerGetCounterDataSize(&sp)))
		return NULL;
	c->cdata_size = sp.counterDataSize;
	c->cdata = calloc(1, c->cdata_size);
	if (!c->cdata || !arm(c))
		return NULL;
	return c;
}

static void CUPTIAPI callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
	static _Thread_local int busy;   /* CUPTI may launch work of its own during a harvest */
	const CUpti_CallbackData *cd = data;
	struct bare_ctx *c;

	(void)ud;
	(void)id;
	if (dom != CUPTI_CB_DOMAIN_DRIVER_API || cd->callbackSite != CUPTI_API_ENTER || busy)
		return;
	busy = 1;
	pthread_mutex_lock(&B.lock);
	B.launches++;
	c = session(cd->context);
	if (c && c->running && c->launched >= B.ranges) {   /* full: harvest before this kernel */
		stop_decode(c);
		arm(c);
		B.refills++;
	}
	if (c)
		c->launched++;
	pthread_mutex_unlock(&B.lock);
	busy = 0;
}

__attribute__((constructor)) static void bare_start(void)
{
	static const CUpti_driver_api_trace_cbid ids[] = {
		CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
		CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
		CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
	};
	CUpti_Profiler_Initialize_Params pi = { .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE };
	const char *r = getenv("BARE_CUPTI_RANGES");

	B.metric = getenv("BARE_CUPTI_METRIC") ? getenv("BARE_CUPTI_METRIC") : "smsp__inst_executed.sum";
	B.ranges = r && atoi(r) > 0 ? (size_t)atoi(r) : 16;
	if (cuInit(0) != CUDA_SUCCESS || !OK(cuptiProfilerInitialize(&pi)) ||
	    !OK(cuptiSubscribe(&B.sub, callback, NULL)))
		return;
	for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
		OK(cuptiEnableCallback(1, B.sub, CUPTI_CB_DOMAIN_DRIVER_API, (CUpti_CallbackId)ids[i]));
}
