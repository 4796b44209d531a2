/*
 * cuda_replay_own.c - Tally's own kernel replay, with an L2 flush before
 * every pass (issue 50).
 *
 * CUPTI's kernel replay runs a kernel's passes back to back: the flush
 * queued before the launch precedes the first pass only, and a kernel
 * whose data fits in the L2 reads it from there in the later passes
 * (dram__bytes_read.sum 34% low on H200 with three metrics in two
 * passes, against ncu and against the metric alone).  So when a per-
 * kernel list needs several passes, holds a cache-dependent metric and
 * the flush is on (TALLY_CUDA_CACHE=flush, the default, as ncu's), Tally
 * replays the kernel itself, as ncu does:
 *   launch entry: the context synchronised, its device memory saved
 *     (CUPTI's Checkpoint API); the flush queued (cuda_cache.c); the
 *     session (AutoRange + UserReplay) is at its first pass;
 *   launch exit: the pass stopped; for each further pass the memory
 *     restored, the session started, the flush queued and the same
 *     launch made again with the same parameters (this thread's launch
 *     callback ignores it), then stopped; once CUPTI says every pass was
 *     submitted, the kernel's range is decoded and evaluated and the
 *     session re-armed for the next kernel (cuda_range_full.c).
 * The kernel runs once per pass, as under CUPTI's replay, and the
 * program's memory after the launch is that of its own single run (the
 * last pass starts from the saved state).  A launch into a stream being
 * captured into a CUDA graph does not run, so it gets no passes.  Threads
 * launching into one such context are replayed one launch at a time
 * (cuda_replay_serial.c).  Without
 * the Checkpoint library the list is replayed by CUPTI and said once
 * (cuda_replay_cache.c).
 */
#include "cuda_internal.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "papi.h"
#include "services/err_detail.h"

#define RESERVE_DEVICE_MB 512 /* device memory the saved state leaves to the program */

static atomic_int used;

static const struct tly_cu_pti *P(void)
{
	return tly_cu_libs()->pti;
}

int tly_cu_own_used(void)
{
	return atomic_load(&used);
}

int tally_gpu_replay_flushes_each_pass(void)
{
	return tly_cu_own_used();
}

int tly_cu_own_wanted(const char *const *names, int n, size_t passes, const char **why)
{
	int sensitive = 0;

	*why = NULL;
	for (int i = 0; i < n && !sensitive; i++)
		sensitive = tally_gpu_metric_cache_dependent(names[i]);
	if (passes <= 1 || !sensitive || tly_cu_cache_mode() != 1)
		return 0;
	return tly_cu_ckpt_fns(why) != NULL;
}

int tly_cu_own_open(struct tly_cu_coll *c)
{
	c->ckpt = calloc(1, sizeof *c->ckpt);
	if (!c->ckpt)
		return PAPI_ENOMEM;
	c->ckpt->structSize = TLY_CU_CKPT_STRUCT_SIZE;
	c->ckpt->ctx = c->ctx;
	c->ckpt->reserveDeviceMB = RESERVE_DEVICE_MB;
	c->ckpt->allowOverwrite = 1;
	tly_cu_own_serial_add(c->ctx);   /* its launches replayed one at a time */
	atomic_store(&used, 1);
	return PAPI_OK;
}

void tly_cu_own_close(struct tly_cu_coll *c)
{
	const struct tly_cu_ckpt_fns *f = c->ckpt ? tly_cu_ckpt_fns(NULL) : NULL;

	if (f)
		f->cuptiCheckpointFree(c->ckpt);   /* never saved: an error, nothing to free */
	free(c->ckpt);
	c->ckpt = NULL;
}

static int capturing(CUstream stream)
{
	CUstreamCaptureStatus cap = CU_STREAM_CAPTURE_STATUS_NONE;

	return tly_cu_libs()->drv->cuStreamIsCapturing(stream, &cap) != CUDA_SUCCESS ||
	       cap != CU_STREAM_CAPTURE_STATUS_NONE;
}

void tly_cu_own_before(struct tly_cu_coll *c, CUstream stream)
{
	const struct tly_cu_ckpt_fns *f = tly_cu_ckpt_fns(NULL);
	CUptiResult r;

	c->own_skip = capturing(stream);
	if (c->own_skip || !f)
		return;
	tly_cu_cb_quiet(1);
	tly_cu_libs()->drv->cuCtxSynchronize();
	r = f->cuptiCheckpointSave(c->ckpt);
	tly_cu_cb_quiet(0);
	if (r != CUPTI_SUCCESS) {
		c->own_skip = 1;
		c->full_rc = tly_cu_pti_err(r, "cuptiCheckpointSave (Tally's kernel replay)");
	}
}

/* The same launch again, with the parameters of the call that returned. */
static CUresult relaunch(CUpti_CallbackId id, const void *p)
{
	const struct tly_cu_drv *d = tly_cu_libs()->drv;
	int ptsz = id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz ||
		   id == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz;

	switch (id) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
		const cuLaunchKernel_params *a = p;
		CUstream s = a->hStream || !ptsz ? a->hStream : CU_STREAM_PER_THREAD;

		return d->cuLaunchKernel(a->f, a->gridDimX, a->gridDimY, a->gridDimZ, a->blockDimX, a->blockDimY,
					 a->blockDimZ, a->sharedMemBytes, s, a->kernelParams, a->extra);
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
		const cuLaunchKernelEx_params *a = p;
		CUlaunchConfig cfg;

		if (!a->config)
			return CUDA_ERROR_INVALID_VALUE;
		cfg = *a->config;
		if (!cfg.hStream && ptsz)
			cfg.hStream = CU_STREAM_PER_THREAD;
		return d->cuLaunchKernelEx(&cfg, a->f, a->kernelParams, a->extra);
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel: {
		const cuLaunchCooperativeKernel_params *a = p;

		return d->cuLaunchCooperativeKernel(a->f, a->gridDimX, a->gridDimY, a->gridDimZ, a->blockDimX,
						    a->blockDimY, a->blockDimZ, a->sharedMemBytes, a->hStream,
						    a->kernelParams);
	}
	default:
		return CUDA_ERROR_NOT_SUPPORTED;
	}
}

/* One more pass: memory restored, flush queued, the launch again. */
static int one_pass(struct tly_cu_coll *c, CUpti_CallbackId id, const void *params,
		    CUpti_RangeProfiler_Stop_Params *sp)
{
	CUpti_RangeProfiler_Start_Params st = { .structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE };
	int rc = tly_cu_pti_err(tly_cu_ckpt_fns(NULL)->cuptiCheckpointRestore(c->ckpt),
				"cuptiCheckpointRestore (Tally's kernel replay)");

	st.pRangeProfilerObject = c->obj;
	if (rc == PAPI_OK)
		rc = tly_cu_pti_err(P()->cuptiRangeProfilerStart(&st), "cuptiRangeProfilerStart");
	if (rc != PAPI_OK)
		return rc;
	tly_cu_cache_before_launch(c->ctx, tly_cu_launch_stream(id, params));
	rc = tly_cu_drv_err(relaunch(id, params), "kernel launch of a replay pass");
	tly_cu_libs()->drv->cuCtxSynchronize();
	sp->pRangeProfilerObject = c->obj;
	int r2 = tly_cu_pti_err(P()->cuptiRangeProfilerStop(sp), "cuptiRangeProfilerStop");

	return rc != PAPI_OK ? rc : r2;
}

int tly_cu_own_after(struct tly_cu_coll *c, CUpti_CallbackId id, const void *params)
{
	CUpti_RangeProfiler_Stop_Params sp = { .structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE };
	int rc;

	if (c->own_skip || c->own_done || !params)
		return PAPI_OK;
	tly_cu_cb_quiet(1);
	tly_cu_libs()->drv->cuCtxSynchronize();
	sp.pRangeProfilerObject = c->obj;
	rc = tly_cu_pti_err(P()->cuptiRangeProfilerStop(&sp), "cuptiRangeProfilerStop");
	for (size_t pass = 1; rc == PAPI_OK && !sp.isAllPassSubmitted && pass < c->cfg.passes + 2; pass++)
		rc = one_pass(c, id, params, &sp);
	tly_cu_cb_quiet(0);
	if (rc == PAPI_OK && !sp.isAllPassSubmitted)
		rc = tly_err_set(PAPI_EMULPASS, "Tally's kernel replay: not all %zu passes were submitted",
				 c->cfg.passes);
	c->own_done = 1;   /* stopped: harvested and re-armed next */
	return rc;
}
