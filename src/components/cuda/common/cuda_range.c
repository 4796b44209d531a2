/*
 * cuda_range.c - range profiler sessions ("collectors").
 *
 * A collector profiles one context with one config image:
 *   continuous mode: UserRange + UserReplay, one range pushed at start and
 *     popped at each harvest (one pass only: the application would have to
 *     replay its work otherwise);
 *   kernel mode: AutoRange, one range per kernel, with KernelReplay when
 *     the config needs several passes or kernel replay was asked for
 *     (CUPTI rejects UserRange + KernelReplay);
 *   ranges mode: UserRange + UserReplay, one pass, kernels not serialised:
 *     a range per span between tally_gpu_range_mark calls (the runtime
 *     marks region changes), named by the mark; a full image is harvested
 *     at the mark and the session re-armed;
 *   application replay (a pass set on the context): AutoRange + UserReplay
 *     at that pass index; the counter data image comes from the previous
 *     run's file (cuda_image.c) and goes back to it at the harvest, and
 *     only the run of the last pass evaluates ranges.
 * A harvest stops the profiler, decodes, evaluates each range and, when
 * asked, re-initialises the counter data image and starts again, so the
 * next window starts from zero.  In kernel mode a full image (max_ranges
 * kernels) is harvested from the launch callback of the next kernel and
 * its ranges handed to the on_full function: no kernel loses its values.
 */
#include "cuda_internal.h"
#include "cuda_replay_cache.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "services/err_detail.h"
#include "services/err_text.h"
#include "tally_shared.h"

#define KERNEL_MODE_RANGES 1024
#define REFILL_RANGES 16

/* Ranges one counter data image holds in kernel and ranges mode
 * (TALLY_CUDA_RANGES, 1..65536; 0, the default: automatic).  The first
 * Start of a session costs about 1 ms per range of the image on top of
 * about 0.14 s (H100: 0.15 s at 8, 0.21 s at 64, 1.2 s at 1,024), a
 * launch the same whatever the size: a kernel mode session harvested when
 * full (`refill`) holds 16, costing about 3 ms per harvest (0.2 ms per
 * kernel); ranges mode and application replay, which keep the image to a
 * mark or to the run's end, hold 1,024. */
static size_t image_ranges(int refill)
{
	long long n = tly_setting_count(TLY_SET_cuda_ranges);

	return n >= 1 ? (size_t)n : refill ? REFILL_RANGES : KERNEL_MODE_RANGES;
}
#define MAX_NAMED 16

/* Running ranges-mode sessions, under tly_cu_range_lock (cuda_range_full.c),
 * which also orders marks and harvests of every session (CUPTI's range
 * calls on one object from several threads; kernel-mode harvests from
 * launch callbacks). */
static struct {
	struct tly_cu_coll *c[MAX_NAMED];
} named;

static const struct tly_cu_pti *P(void)
{
	return tly_cu_libs()->pti;
}

static int push_ctx(CUcontext ctx)
{
	return tly_cu_drv_err(tly_cu_libs()->drv->cuCtxPushCurrent(ctx), "cuCtxPushCurrent");
}

static void pop_ctx(void)
{
	CUcontext dummy;

	tly_cu_libs()->drv->cuCtxPopCurrent(&dummy);
}

static int alloc_cdata(struct tly_cu_coll *c)
{
	CUpti_RangeProfiler_GetCounterDataSize_Params sp = {
		.structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE };
	int rc;

	sp.pRangeProfilerObject = c->obj;
	sp.pMetricNames = c->names;
	sp.numMetrics = (size_t)c->n;
	sp.maxNumOfRanges = c->max_ranges;
	sp.maxNumRangeTreeNodes = (uint32_t)c->max_ranges;
	double t = tly_cu_time_start();

	rc = tly_cu_pti_err(P()->cuptiRangeProfilerGetCounterDataSize(&sp), "cuptiRangeProfilerGetCounterDataSize");
	tly_cu_time_end("cuptiRangeProfilerGetCounterDataSize", t);
	if (rc != PAPI_OK)
		return rc;
	c->cdata = calloc(1, sp.counterDataSize);
	c->cdata_size = sp.counterDataSize;
	return c->cdata ? PAPI_OK : tly_err_set(PAPI_ENOMEM, "counter data image of %zu bytes", sp.counterDataSize);
}

/* Initialise the image, set the config and start (and push the window's
 * range in continuous mode). */
static int arm(struct tly_cu_coll *c)
{
	CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip = {
		.structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_SetConfig_Params sc = { .structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_Start_Params st = { .structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_PushRange_Params pr = { .structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE };
	int rc;
	double t = tly_cu_time_start();

	ip.pRangeProfilerObject = c->obj;
	ip.counterDataSize = c->cdata_size;
	ip.pCounterData = c->cdata;
	if (c->user_pass > 0)
		rc = tly_cu_image_load(c->image, &c->cfg, c->user_pass - 1, c->cdata, c->cdata_size);
	else
		rc = tly_cu_pti_err(P()->cuptiRangeProfilerCounterDataImageInitialize(&ip),
				    "cuptiRangeProfilerCounterDataImageInitialize");
	tly_cu_time_end("counter data image initialise", t);
	sc.pRangeProfilerObject = c->obj;
	sc.configSize = c->cfg.size;
	sc.pConfig = c->cfg.image;
	sc.counterDataImageSize = c->cdata_size;
	sc.pCounterDataImage = c->cdata;
	sc.range = c->kernel_mode ? CUPTI_AutoRange : CUPTI_UserRange;
	sc.replayMode = c->kernel_replay && !c->own ? CUPTI_KernelReplay : CUPTI_UserReplay;
	sc.maxRangesPerPass = c->max_ranges;
	sc.numNestingLevels = 1;
	sc.minNestingLevel = 1;
	sc.targetNestingLevel = 1;
	sc.passIndex = c->user_pass > 0 ? (size_t)c->user_pass : 0;
	t = tly_cu_time_start();
	if (rc == PAPI_OK)
		rc = tly_cu_pti_err(P()->cuptiRangeProfilerSetConfig(&sc), "cuptiRangeProfilerSetConfig");
	tly_cu_time_end("cuptiRangeProfilerSetConfig", t);
	t = tly_cu_time_start();
	st.pRangeProfilerObject = c->obj;
	if (rc == PAPI_OK)
		rc = tly_cu_pti_err(P()->cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
	tly_cu_time_end("cuptiRangeProfilerStart", t);
	pr.pRangeProfilerObject = c->obj;
	pr.pRangeName = c->named && c->cur ? c->cur : "tally";
	if (rc == PAPI_OK && !c->kernel_mode)
		rc = tly_cu_pti_err(P()->cuptiRangeProfilerPushRange(&pr), "cuptiRangeProfilerPushRange");
	if (rc == PAPI_OK && c->named)
		c->rnames[c->nr++] = strdup(pr.pRangeName);
	c->running = rc == PAPI_OK;
	c->launched = 0;
	c->own_done = 0;
	return rc;
}

static int enable(struct tly_cu_coll *c)
{
	CUpti_RangeProfiler_Enable_Params ep = { .structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE };
	CUptiResult r;

	ep.ctx = c->ctx;
	r = P()->cuptiRangeProfilerEnable(&ep);
	if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
		return tly_err_set(PAPI_EPERM, "cuptiRangeProfilerEnable: %s: GPU profiling is restricted to "
				   "admin users (NVreg_RestrictProfilingToAdminUsers=0 or CAP_PERFMON needed)",
				   tly_cu_pti_str(r));
	c->obj = ep.pRangeProfilerObject;
	return tly_cu_pti_err(r, "cuptiRangeProfilerEnable");
}

static void disable(struct tly_cu_coll *c)
{
	CUpti_RangeProfiler_Disable_Params dp = { .structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE };

	if (!c->obj)
		return;
	dp.pRangeProfilerObject = c->obj;
	P()->cuptiRangeProfilerDisable(&dp);
	c->obj = NULL;
}

static void clear_rnames(struct tly_cu_coll *c)
{
	for (size_t i = 0; c->rnames && i < c->nr; i++)
		free(c->rnames[i]);
	c->nr = 0;
}

static void free_coll(struct tly_cu_coll *c)
{
	clear_rnames(c);
	free(c->rnames);
	free(c->cur);
	for (int i = 0; i < c->n && c->names; i++)
		free((char *)c->names[i]);
	free(c->names);
	free(c->is_counter);
	free(c->vals);
	free(c->cdata);
	tly_cu_own_close(c);
	tly_cu_config_free(&c->cfg);
	tly_cu_ctx_release(c->ctx, c);
	memset(c, 0, sizeof *c);
}

static int copy_names(struct tly_cu_coll *c, const char *const *names, int n)
{
	const struct tly_cu_catalog *cat = tly_cu_device_catalog(c->dev);

	c->names = calloc((size_t)n, sizeof *c->names);
	c->is_counter = calloc((size_t)n, sizeof *c->is_counter);
	c->vals = calloc((size_t)n, sizeof *c->vals);
	if (!c->names || !c->is_counter || !c->vals || !cat)
		return cat ? PAPI_ENOMEM : tly_err_last_code();
	for (c->n = 0; c->n < n; c->n++) {
		int m, v;

		c->names[c->n] = strdup(names[c->n]);
		if (tly_cu_catalog_find(cat, names[c->n], &m, &v) != 0)
			return tly_err_set(PAPI_ENOEVNT, "unknown GPU metric '%s' on %s", names[c->n], cat->chip);
		c->is_counter[c->n] = cat->m[m].type == CUPTI_METRIC_TYPE_COUNTER;
	}
	return PAPI_OK;
}

static int named_add(struct tly_cu_coll *c)
{
	int rc = tly_err_set(PAPI_ECOUNT, "more than %d GPU sessions in ranges mode", MAX_NAMED);

	tly_cu_range_lock(1);
	for (int i = 0; i < MAX_NAMED && rc != PAPI_OK; i++)
		if (!named.c[i]) {
			named.c[i] = c;
			rc = PAPI_OK;
		}
	tly_cu_range_lock(0);
	return rc;
}

static void named_remove(struct tly_cu_coll *c)
{
	tly_cu_range_lock(1);
	for (int i = 0; i < MAX_NAMED; i++)
		if (named.c[i] == c)
			named.c[i] = NULL;
	tly_cu_range_lock(0);
}

void tly_cu_coll_on_full(struct tly_cu_coll *c, tly_cu_range_fn fn, void *ud)
{
	tly_cu_range_lock(1);
	c->full_fn = fn;
	c->full_ud = ud;
	tly_cu_range_lock(0);
}

/* Kernel replay by Tally itself (a flush before every pass: cache-
 * dependent metrics in several passes, TALLY_CUDA_CACHE=flush) or by
 * CUPTI (said once when a cache-dependent metric may be low). */
static int choose_replay(struct tly_cu_coll *c, const char *const *names, int n)
{
	const char *why = NULL;

	if (c->flush && c->user_pass < 0 && tly_cu_coll_can_refill(c))
		c->own = tly_cu_own_wanted(names, n, c->cfg.passes, &why);
	if (!c->own) {
		tly_cu_replay_cache_check(names, n, c->cfg.passes, why);
		return PAPI_OK;
	}
	return tly_cu_own_open(c);
}

int tly_cu_coll_open(struct tly_cu_coll *c, CUcontext ctx, int dev, const char *const *names, int n,
		     int kernel_mode, int kernel_replay)
{
	int rc;
	double t;

	memset(c, 0, sizeof *c);
	c->ctx = ctx;
	c->dev = dev;
	rc = tly_cu_ctx_claim(ctx, c);
	if (rc != PAPI_OK) {
		c->ctx = NULL;
		return rc;
	}
	c->user_pass = kernel_replay ? -1 : tly_cu_ctx_user_pass(ctx, c->image, sizeof c->image);
	rc = copy_names(c, names, n);
	if (rc == PAPI_OK)
		rc = tly_cu_config_build(tly_cu_device(dev)->chip, tly_cu_device_avail_any(dev), names, n, &c->cfg);
	if (rc == PAPI_OK && c->user_pass >= (int)c->cfg.passes)
		rc = tly_err_set(PAPI_EINVAL, "application replay pass %d: these GPU metrics need %zu passes "
				 "(0..%zu)", c->user_pass, c->cfg.passes, c->cfg.passes - 1);
	if (rc == PAPI_OK && c->cfg.passes > 1 && !kernel_replay && c->user_pass < 0)
		rc = tly_err_set(PAPI_EMULPASS, "these GPU metrics need %zu passes; enable kernel replay "
				 "(tally_gpu_kernel_replay_enable or TALLY_CUDA_REPLAY=kernel) or use group sets",
				 c->cfg.passes);
	c->named = kernel_mode == TALLY_GPU_COLLECTION_RANGES && !kernel_replay && c->user_pass < 0;
	c->kernel_mode = (kernel_mode && !c->named) || kernel_replay || c->user_pass >= 0;
	c->kernel_replay = kernel_replay;
	c->max_ranges = c->kernel_mode || c->named ? image_ranges(tly_cu_coll_can_refill(c)) : 1;
	if (rc == PAPI_OK && c->named && !(c->rnames = calloc(c->max_ranges, sizeof *c->rnames)))
		rc = PAPI_ENOMEM;
	if (rc == PAPI_OK && c->named && c->cfg.passes > 1)
		rc = tly_err_set(PAPI_EMULPASS, "GPU ranges mode collects one pass; these metrics need %zu",
				 c->cfg.passes);
	if (rc == PAPI_OK)
		rc = push_ctx(ctx);
	if (rc != PAPI_OK) {
		free_coll(c);
		return rc;
	}
	t = tly_cu_time_start();
	rc = enable(c);
	tly_cu_time_end("cuptiRangeProfilerEnable", t);
	if (rc == PAPI_OK && c->kernel_mode && tly_cu_cache_mode() == 1) {   /* flush before each kernel */
		rc = tly_cu_cb_init();
		if (rc == PAPI_OK)
			rc = tly_cu_cache_arm(ctx, dev, 1);
		c->flush = rc == PAPI_OK;
	}
	if (rc == PAPI_OK && c->kernel_replay)
		rc = choose_replay(c, names, n);
	t = tly_cu_time_start();
	if (rc == PAPI_OK)
		rc = alloc_cdata(c);
	if (rc == PAPI_OK)
		rc = arm(c);
	tly_cu_time_end("counter data image + set config + start", t);
	if (rc == PAPI_OK)
		tly_cu_ctx_set_passes(ctx, c->kernel_replay ? (int)c->cfg.passes : 0);
	pop_ctx();
	if (rc == PAPI_OK && c->named)
		rc = named_add(c);
	if (rc == PAPI_OK)
		tly_cu_coll_kernel_add(c, tly_cu_coll_harvest_locked);
	if (rc != PAPI_OK) {
		disable(c);
		free_coll(c);
	}
	return rc;
}

/* Stop the running session and decode what it collected. */
static int stop_decode(struct tly_cu_coll *c)
{
	CUpti_RangeProfiler_PopRange_Params pp = { .structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_Stop_Params sp = { .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_DecodeData_Params dp = { .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE };
	int rc = PAPI_OK;

	if (!c->running)
		return PAPI_OK;
	c->running = 0;
	tly_cu_libs()->drv->cuCtxSynchronize();
	pp.pRangeProfilerObject = c->obj;
	if (!c->kernel_mode)
		rc = tly_cu_pti_err(P()->cuptiRangeProfilerPopRange(&pp), "cuptiRangeProfilerPopRange");
	sp.pRangeProfilerObject = c->obj;
	/* Tally's own replay: the last kernel's passes ended with their Stop;
	 * with no kernel since the start (or its passes failed), nothing to decode */
	if (c->own && !c->own_done) {
		P()->cuptiRangeProfilerStop(&sp);
		return PAPI_OK;
	}
	if (rc == PAPI_OK && !c->own)
		rc = tly_cu_pti_err(P()->cuptiRangeProfilerStop(&sp), "cuptiRangeProfilerStop");
	if (rc == PAPI_OK && !c->own && !sp.isAllPassSubmitted && c->user_pass < 0)
		rc = tly_err_set(PAPI_EMULPASS, "range profiler: not all %zu passes were submitted", c->cfg.passes);
	dp.pRangeProfilerObject = c->obj;
	if (rc == PAPI_OK)
		rc = tly_cu_pti_err(P()->cuptiRangeProfilerDecodeData(&dp), "cuptiRangeProfilerDecodeData");
	c->dropped += dp.numOfRangeDropped;
	if (dp.numOfRangeDropped)
		tly_cu_coll_say_dropped(c, dp.numOfRangeDropped);
	if (rc == PAPI_OK && c->user_pass >= 0)
		rc = tly_cu_image_save(c->image, &c->cfg, c->user_pass, c->cdata, c->cdata_size);
	return rc;
}

static int eval_range(struct tly_cu_coll *c, size_t idx, tly_cu_range_fn fn, void *ud)
{
	CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
		.structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE };
	char *name;
	int rc;

	ev.pHostObject = c->cfg.host;
	ev.pCounterDataImage = c->cdata;
	ev.counterDataImageSize = c->cdata_size;
	ev.rangeIndex = idx;
	ev.ppMetricNames = c->names;
	ev.numMetrics = (size_t)c->n;
	ev.pMetricValues = c->vals;
	rc = tly_cu_pti_err(P()->cuptiProfilerHostEvaluateToGpuValues(&ev), "cuptiProfilerHostEvaluateToGpuValues");
	if (rc != PAPI_OK)
		return rc;
	name = c->kernel_mode ? tly_cu_ctx_launch_name(c->ctx, idx)
	       : c->named && idx < c->nr && c->rnames[idx] ? strdup(c->rnames[idx]) : NULL;
	if (fn)
		fn(ud, idx, name ? name : c->kernel_mode ? "kernel" : "tally", c->vals);
	free(name);
	return PAPI_OK;
}

static int evaluate(struct tly_cu_coll *c, tly_cu_range_fn fn, void *ud)
{
	CUpti_RangeProfiler_GetCounterDataInfo_Params ip = {
		.structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE };
	int rc;

	ip.pCounterDataImage = c->cdata;
	ip.counterDataImageSize = c->cdata_size;
	rc = tly_cu_pti_err(P()->cuptiRangeProfilerGetCounterDataInfo(&ip), "cuptiRangeProfilerGetCounterDataInfo");
	for (size_t i = 0; rc == PAPI_OK && i < ip.numTotalRanges; i++)
		rc = eval_range(c, i, fn, ud);
	return rc;
}

int tly_cu_coll_harvest_locked(struct tly_cu_coll *c, int restart, tly_cu_range_fn fn, void *ud)
{
	int rc;

	if (!c->obj)
		return tly_err_set(PAPI_ENOTRUN, "GPU collection is not running");
	rc = push_ctx(c->ctx);
	if (rc != PAPI_OK)
		return rc;
	if (c->user_pass >= 0 && !c->running) {   /* this run's one pass is done */
		pop_ctx();
		return PAPI_OK;
	}
	double t = tly_cu_time_start();

	rc = stop_decode(c);
	tly_cu_time_end("stop + decode", t);
	t = tly_cu_time_start();
	if (rc == PAPI_OK && (c->user_pass < 0 || c->user_pass == (int)c->cfg.passes - 1))
		rc = evaluate(c, fn, ud);
	tly_cu_time_end("evaluate ranges", t);
	tly_cu_ctx_clear_launches(c->ctx);
	clear_rnames(c);
	if (restart && c->user_pass < 0) {
		int r2 = arm(c);

		rc = rc == PAPI_OK ? r2 : rc;
	}
	pop_ctx();
	return rc;
}

int tly_cu_coll_harvest(struct tly_cu_coll *c, int restart, tly_cu_range_fn fn, void *ud)
{
	int rc;

	tly_cu_range_lock(1);
	rc = tly_cu_coll_harvest_locked(c, restart, fn, ud);
	if (rc == PAPI_OK && c->full_rc != PAPI_OK)   /* a harvest at a launch failed */
		rc = tly_err_set(c->full_rc, "a GPU counter data image harvested when full failed: %s",
				 tly_err_text(c->full_rc));
	c->full_rc = PAPI_OK;
	tly_cu_range_lock(0);
	return rc;
}


/* End the open range and push one named `name`; a full image is
 * harvested and re-armed (arm pushes the new range).  tly_cu_range_lock held. */
static int mark_one(struct tly_cu_coll *c, const char *name)
{
	CUpti_RangeProfiler_PopRange_Params pp = { .structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE };
	CUpti_RangeProfiler_PushRange_Params pr = { .structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE };
	char *dup = strdup(name);
	int rc;

	if (!dup)
		return PAPI_ENOMEM;
	free(c->cur);
	c->cur = dup;
	if (!c->running)
		return PAPI_OK;
	if (c->nr >= c->max_ranges)
		return tly_cu_coll_harvest_locked(c, 1, c->full_fn, c->full_ud);
	rc = push_ctx(c->ctx);
	if (rc != PAPI_OK)
		return rc;
	pp.pRangeProfilerObject = pr.pRangeProfilerObject = c->obj;
	pr.pRangeName = name;
	rc = tly_cu_pti_err(P()->cuptiRangeProfilerPopRange(&pp), "cuptiRangeProfilerPopRange");
	if (rc == PAPI_OK)
		rc = tly_cu_pti_err(P()->cuptiRangeProfilerPushRange(&pr), "cuptiRangeProfilerPushRange");
	if (rc == PAPI_OK)
		c->rnames[c->nr++] = strdup(name);
	else
		c->running = 0;   /* the session's ranges are no longer balanced */
	pop_ctx();
	return rc;
}

int tally_gpu_range_mark(const char *name)
{
	int rc = PAPI_OK;

	if (!name)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_range_mark: NULL name");
	tly_cu_range_lock(1);
	for (int i = 0; i < MAX_NAMED; i++)
		if (named.c[i]) {
			int r = mark_one(named.c[i], name);

			rc = rc == PAPI_OK ? r : rc;
		}
	tly_cu_range_lock(0);
	return rc;
}

int tly_cu_coll_close(struct tly_cu_coll *c, tly_cu_range_fn fn, void *ud)
{
	int rc = PAPI_OK;

	if (!c->obj)
		return PAPI_OK;
	if (c->named)
		named_remove(c);
	tly_cu_coll_kernel_remove(c);
	if (c->running)
		rc = tly_cu_coll_harvest(c, 0, fn, ud);
	if (push_ctx(c->ctx) == PAPI_OK) {
		disable(c);
		pop_ctx();
	}
	if (c->flush)
		tly_cu_cache_arm(c->ctx, c->dev, 0);
	free_coll(c);
	return rc;
}
