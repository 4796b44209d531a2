/*
 * cuda_context_modes.c - the per-context modes of the tally_gpu_* API:
 * kernel replay on or off, the application-replay pass and its image file,
 * the collection mode (per kernel or continuous).  Kept by the context
 * registry (common/cuda_ctxreg.c) for the groups enabled later.
 */
#include "cuda_groups_internal.h"

#include "papi.h"
#include "services/err_detail.h"

int tally_gpu_kernel_replay_enable(void *cu_context)
{
	CUcontext ctx;
	int dev, rc = tly_cu_ctx_resolve(cu_context, &ctx, &dev);

	if (rc == PAPI_OK)
		rc = tly_cu_cb_init();
	return rc == PAPI_OK ? tly_cu_ctx_set_replay(ctx, 1) : rc;
}

int tally_gpu_kernel_replay_disable(void *cu_context)
{
	CUcontext ctx;
	int dev, rc = tly_cu_ctx_resolve(cu_context, &ctx, &dev);

	return rc == PAPI_OK ? tly_cu_ctx_set_replay(ctx, 0) : rc;
}

int tally_gpu_user_replay_pass(void *cu_context, int pass, const char *image_path)
{
	CUcontext ctx;
	int dev, rc;

	if (pass >= 0 && (!image_path || !*image_path))
		return tly_err_set(PAPI_EINVAL, "tally_gpu_user_replay_pass: pass %d needs an image file", pass);
	rc = tly_cu_ctx_resolve(cu_context, &ctx, &dev);
	return rc == PAPI_OK ? tly_cu_ctx_set_user_pass(ctx, pass, image_path) : rc;
}

int tally_gpu_set_collection_mode(void *cu_context, int mode)
{
	CUcontext ctx;
	int dev, rc;

	if (mode != TALLY_GPU_COLLECTION_KERNEL && mode != TALLY_GPU_COLLECTION_CONTINUOUS &&
	    mode != TALLY_GPU_COLLECTION_RANGES)
		return tly_err_set(PAPI_EINVAL, "unknown GPU collection mode %d", mode);
	rc = tly_cu_ctx_resolve(cu_context, &ctx, &dev);
	return rc == PAPI_OK ? tly_cu_ctx_set_mode(ctx, mode) : rc;
}
