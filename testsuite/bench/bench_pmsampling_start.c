/*
 * bench_pmsampling_start.c pm|range [N] - probe (issue 22, start-up): does
 * CUPTI's PM sampling API start faster than the Range Profiler on this
 * GPU?  One fresh process per run (the first Start on a context is what
 * costs): the CUDA context is made by the test kernels' runtime, then
 *   pm     cuptiPmSamplingGetCounterAvailability, host config (profiler
 *          type PM sampling), Enable, counter data image (PMS_SAMPLES
 *          samples, default 1000), SetConfig (GPU time trigger, 100 us,
 *          a PMS_BUFFER_MB hardware buffer, default 32), Start, N
 *          launches, Stop, Decode, samples summed for the first metric PM
 *          sampling accepts;
 *   range  the same config steps for the Range Profiler (UserRange +
 *          UserReplay, one range; with PMS_RANGES=R: AutoRange, an image
 *          of R ranges, as Tally's kernel mode), Start, N launches, Stop,
 *          Decode, the ranges' values summed.
 * Prints each phase in ms (PMS_PHASE lines) and the value (PMS_VALUE).
 * No verdict (label bench); figures in docs/gpu-startup.md.  Calls CUPTI directly
 * (not through Tally): it probes CUPTI itself.
 */
#define _POSIX_C_SOURCE 200809L
#include <cuda.h>
#include <dlfcn.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/gpu_kernels.h"
#include "../gpu/gpu_present.h"
#include "th_clock.h"

#define CK(call) do { CUptiResult r_ = (call); if (r_ != CUPTI_SUCCESS) { \
	const char *s_ = NULL; cuptiGetResultString(r_, &s_); \
	printf("FAILED: %s: %s\n", #call, s_ ? s_ : "?"); exit(1); } } while (0)
#define P(type, name) type name = { .structSize = type##_STRUCT_SIZE }

static double t_last;

static void phase(const char *name)
{
	double now = th_now_s();

	printf("PMS_PHASE %-28s %9.1f ms\n", name, 1e3 * (now - t_last));
	t_last = now;
}

static const char *const candidates[] = { "sm__inst_executed.sum", "smsp__inst_executed.sum",
					  "sm__cycles_active.sum", "gr__cycles_elapsed.max" };

/* Host object and config image for the first candidate the type accepts. */
static const char *config(CUpti_ProfilerType type, const char *chip, const uint8_t *avail,
			  CUpti_Profiler_Host_Object **host, uint8_t **img, size_t *size)
{
	for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
		P(CUpti_Profiler_Host_Initialize_Params, hi);
		P(CUpti_Profiler_Host_ConfigAddMetrics_Params, am);
		P(CUpti_Profiler_Host_GetConfigImageSize_Params, cs);
		P(CUpti_Profiler_Host_GetConfigImage_Params, ci);
		P(CUpti_Profiler_Host_Deinitialize_Params, hd);
		const char *name = candidates[i];

		hi.profilerType = type;
		hi.pChipName = chip;
		hi.pCounterAvailabilityImage = avail;
		CK(cuptiProfilerHostInitialize(&hi));
		am.pHostObject = cs.pHostObject = ci.pHostObject = hi.pHostObject;
		am.ppMetricNames = &name;
		am.numMetrics = 1;
		if (cuptiProfilerHostConfigAddMetrics(&am) != CUPTI_SUCCESS) {
			hd.pHostObject = hi.pHostObject;
			cuptiProfilerHostDeinitialize(&hd);
			continue;
		}
		CK(cuptiProfilerHostGetConfigImageSize(&cs));
		*img = malloc(cs.configImageSize);
		ci.configImageSize = *size = cs.configImageSize;
		ci.pConfigImage = *img;
		CK(cuptiProfilerHostGetConfigImage(&ci));
		*host = hi.pHostObject;
		return candidates[i];
	}
	printf("FAILED: none of the candidate metrics is accepted\n");
	exit(1);
}

static double eval(CUpti_Profiler_Host_Object *host, const char *metric, uint8_t *cd, size_t size, size_t idx)
{
	P(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ev);
	double v = 0;

	ev.pHostObject = host;
	ev.pCounterDataImage = cd;
	ev.counterDataImageSize = size;
	ev.rangeIndex = idx;
	ev.ppMetricNames = &metric;
	ev.numMetrics = 1;
	ev.pMetricValues = &v;
	CK(cuptiProfilerHostEvaluateToGpuValues(&ev));
	return v;
}

static size_t env_num(const char *name, long def)
{
	const char *v = getenv(name);

	return (size_t)(v && atol(v) > 0 ? atol(v) : def);
}

static void launches(int n)
{
	for (int i = 0; i < n; i++)
		tg_work(1, 32, 100);
	tg_sync();
}

static void pm(const char *chip, int n)
{
	P(CUpti_PmSampling_GetCounterAvailability_Params, ca);
	P(CUpti_PmSampling_Enable_Params, en);
	P(CUpti_PmSampling_GetCounterDataSize_Params, ds);
	P(CUpti_PmSampling_CounterDataImage_Initialize_Params, in);
	P(CUpti_PmSampling_SetConfig_Params, sc);
	P(CUpti_PmSampling_Start_Params, st);
	P(CUpti_PmSampling_Stop_Params, sp);
	P(CUpti_PmSampling_DecodeData_Params, dd);
	P(CUpti_PmSampling_GetCounterDataInfo_Params, info);
	CUpti_Profiler_Host_Object *host;
	uint8_t *cfg, *cd;
	size_t cfg_size;
	const char *metric;
	double sum = 0;

	CK(cuptiPmSamplingGetCounterAvailability(&ca));
	ca.pCounterAvailabilityImage = malloc(ca.counterAvailabilityImageSize);
	CK(cuptiPmSamplingGetCounterAvailability(&ca));
	phase("counter availability");
	metric = config(CUPTI_PROFILER_TYPE_PM_SAMPLING, chip, ca.pCounterAvailabilityImage, &host, &cfg, &cfg_size);
	phase("host config image");
	CK(cuptiPmSamplingEnable(&en));
	phase("cuptiPmSamplingEnable");
	ds.pPmSamplingObject = in.pPmSamplingObject = sc.pPmSamplingObject = en.pPmSamplingObject;
	st.pPmSamplingObject = sp.pPmSamplingObject = dd.pPmSamplingObject = en.pPmSamplingObject;
	ds.pMetricNames = &metric;
	ds.numMetrics = 1;
	ds.maxSamples = (uint32_t)env_num("PMS_SAMPLES", 1000);
	CK(cuptiPmSamplingGetCounterDataSize(&ds));
	cd = calloc(1, ds.counterDataSize);
	in.counterDataSize = dd.counterDataImageSize = info.counterDataImageSize = ds.counterDataSize;
	in.pCounterData = dd.pCounterDataImage = cd;
	info.pCounterDataImage = cd;
	CK(cuptiPmSamplingCounterDataImageInitialize(&in));
	phase("counter data image");
	sc.configSize = cfg_size;
	sc.pConfig = cfg;
	sc.hardwareBufferSize = env_num("PMS_BUFFER_MB", 32) << 20;
	sc.samplingInterval = 100000;   /* ns */
	sc.triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL;
	sc.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
	CK(cuptiPmSamplingSetConfig(&sc));
	phase("cuptiPmSamplingSetConfig");
	CK(cuptiPmSamplingStart(&st));
	phase("first cuptiPmSamplingStart");
	launches(n);
	phase("launches");
	CK(cuptiPmSamplingStop(&sp));
	CK(cuptiPmSamplingDecodeData(&dd));
	CK(cuptiPmSamplingGetCounterDataInfo(&info));
	for (size_t i = 0; i < info.numCompletedSamples; i++)
		sum += eval(host, metric, cd, ds.counterDataSize, i);
	phase("stop + decode + evaluate");
	printf("PMS_VALUE pm %s = %.0f over %zu samples (overflow %d) for %d launches\n", metric, sum,
	       info.numCompletedSamples, dd.overflow, n);
}

static void range(const char *chip, CUcontext ctx, int n)
{
	P(CUpti_Profiler_GetCounterAvailability_Params, ca);
	P(CUpti_RangeProfiler_Enable_Params, en);
	P(CUpti_RangeProfiler_GetCounterDataSize_Params, ds);
	P(CUpti_RangeProfiler_CounterDataImage_Initialize_Params, in);
	P(CUpti_RangeProfiler_SetConfig_Params, sc);
	P(CUpti_RangeProfiler_Start_Params, st);
	P(CUpti_RangeProfiler_PushRange_Params, pu);
	P(CUpti_RangeProfiler_PopRange_Params, po);
	P(CUpti_RangeProfiler_Stop_Params, sp);
	P(CUpti_RangeProfiler_DecodeData_Params, dd);
	P(CUpti_RangeProfiler_GetCounterDataInfo_Params, gi);
	CUpti_Profiler_Host_Object *host;
	double v = 0;
	uint8_t *cfg, *cd;
	size_t cfg_size;
	const char *metric;

	ca.ctx = ctx;
	CK(cuptiProfilerGetCounterAvailability(&ca));
	ca.pCounterAvailabilityImage = malloc(ca.counterAvailabilityImageSize);
	CK(cuptiProfilerGetCounterAvailability(&ca));
	phase("counter availability");
	metric = config(CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip, ca.pCounterAvailabilityImage, &host, &cfg, &cfg_size);
	phase("host config image");
	en.ctx = ctx;
	CK(cuptiRangeProfilerEnable(&en));
	phase("cuptiRangeProfilerEnable");
	ds.pRangeProfilerObject = in.pRangeProfilerObject = sc.pRangeProfilerObject = en.pRangeProfilerObject;
	st.pRangeProfilerObject = pu.pRangeProfilerObject = po.pRangeProfilerObject = en.pRangeProfilerObject;
	sp.pRangeProfilerObject = dd.pRangeProfilerObject = en.pRangeProfilerObject;
	ds.pMetricNames = &metric;
	ds.numMetrics = 1;
	size_t nr = env_num("PMS_RANGES", 0);

	ds.maxNumOfRanges = nr ? nr : 1;
	ds.maxNumRangeTreeNodes = (uint32_t)ds.maxNumOfRanges;
	CK(cuptiRangeProfilerGetCounterDataSize(&ds));
	cd = calloc(1, ds.counterDataSize);
	in.counterDataSize = sc.counterDataImageSize = ds.counterDataSize;
	in.pCounterData = sc.pCounterDataImage = cd;
	CK(cuptiRangeProfilerCounterDataImageInitialize(&in));
	phase("counter data image");
	sc.configSize = cfg_size;
	sc.pConfig = cfg;
	sc.range = nr ? CUPTI_AutoRange : CUPTI_UserRange;
	sc.replayMode = CUPTI_UserReplay;
	sc.maxRangesPerPass = ds.maxNumOfRanges;
	sc.numNestingLevels = sc.minNestingLevel = sc.targetNestingLevel = 1;
	CK(cuptiRangeProfilerSetConfig(&sc));
	phase("cuptiRangeProfilerSetConfig");
	CK(cuptiRangeProfilerStart(&st));
	phase("first cuptiRangeProfilerStart");
	pu.pRangeName = "probe";
	if (!nr)
		CK(cuptiRangeProfilerPushRange(&pu));
	launches(n);
	if (!nr)
		CK(cuptiRangeProfilerPopRange(&po));
	phase("launches");
	CK(cuptiRangeProfilerStop(&sp));
	CK(cuptiRangeProfilerDecodeData(&dd));
	gi.pCounterDataImage = cd;
	gi.counterDataImageSize = ds.counterDataSize;
	CK(cuptiRangeProfilerGetCounterDataInfo(&gi));
	for (size_t i = 0; i < gi.numTotalRanges; i++)
		v += eval(host, metric, cd, ds.counterDataSize, i);
	phase("stop + decode + evaluate");
	printf("PMS_VALUE range %s = %.0f over %zu ranges (image of %zu) for %d launches\n", metric, v,
	       gi.numTotalRanges, ds.maxNumOfRanges, n);
}

int main(int argc, char **argv)
{
	P(CUpti_Profiler_Initialize_Params, pi);
	P(CUpti_Device_GetChipName_Params, cn);
	int n = argc > 2 ? atoi(argv[2]) : 100;
	double t0 = th_now_s();
	CUcontext ctx = NULL;
	CUresult (*get_ctx)(CUcontext *) = NULL;

	if (argc < 2 || (strcmp(argv[1], "pm") && strcmp(argv[1], "range"))) {
		fprintf(stderr, "usage: %s pm|range [launches]\n", argv[0]);
		return 2;
	}
	t_last = t0;
	if (tg_init((size_t)1024 * 256, 1024) != 0)
		return gpu_setup_failed("the GPU kernels could not be set up");
	launches(1);
	*(void **)&get_ctx = dlsym(dlopen("libcuda.so.1", RTLD_NOW), "cuCtxGetCurrent");
	if (!get_ctx || get_ctx(&ctx) != CUDA_SUCCESS || !ctx)
		return gpu_setup_failed("no current CUDA context after the first launch");
	phase("CUDA context + first launch");
	CK(cuptiProfilerInitialize(&pi));
	CK(cuptiDeviceGetChipName(&cn));
	phase("cuptiProfilerInitialize");
	if (!strcmp(argv[1], "pm"))
		pm(cn.pChipName, n);
	else
		range(cn.pChipName, ctx, n);
	printf("PMS_PHASE %-28s %9.1f ms\n", "whole (from main)", 1e3 * (th_now_s() - t0));
	return 0;
}
