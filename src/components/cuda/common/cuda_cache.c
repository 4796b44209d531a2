/*
 * cuda_cache.c - cache control for per-kernel GPU metrics (TALLY_CUDA_CACHE,
 * like ncu --cache-control).  'flush': before each kernel launched while a
 * per-kernel collection is open on its context, a write of twice the L2's
 * size is queued on the kernel's stream: it writes back the L2's dirty
 * lines and evicts every other line, so the kernel starts from a cold L2
 * and its DRAM reads are those of a cold cache (the lines of the write are
 * dirty: their write-back may add to the kernel's DRAM writes).  The write
 * is a memset, not a kernel, so it is not a range of the profiler.  In one
 * window (UserRange: PAPI sets without kernel mode) the write would be
 * counted, so it is not made there.  'flush' is the default, as ncu's;
 * 'none': caches as the previous work left them.
 */
#include "cuda_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "services/err_detail.h"
#include "tally_shared.h"

#define MAX_CTX 64

static struct {
	pthread_mutex_t lock;
	int mode;                /* -2 unread, 0 none, 1 flush */
	struct { CUcontext ctx; CUdeviceptr buf; size_t size; int armed; } c[MAX_CTX];
	int n;
	unsigned char fill;
} cache_ctl = { .lock = PTHREAD_MUTEX_INITIALIZER, .mode = -2 };

int tly_cu_cache_mode(void)
{
	pthread_mutex_lock(&cache_ctl.lock);
	if (cache_ctl.mode == -2) {
		char mode[8];

		tly_setting_pick(TLY_SET_cuda_cache, mode, sizeof mode);   /* a bad word: said, the default */
		cache_ctl.mode = !strcmp(mode, "flush");
	}
	pthread_mutex_unlock(&cache_ctl.lock);
	return cache_ctl.mode;
}

static int find(CUcontext ctx)
{
	for (int i = 0; i < cache_ctl.n; i++)
		if (cache_ctl.c[i].ctx == ctx)
			return i;
	return -1;
}

/* ctx is current.  Allocates the flush buffer on first use. */
int tly_cu_cache_arm(CUcontext ctx, int dev, int on)
{
	const struct tly_cu_drv *drv = tly_cu_libs()->drv;
	int rc = PAPI_OK, i, l2 = 0;

	if (tly_cu_cache_mode() != 1)
		return PAPI_OK;
	pthread_mutex_lock(&cache_ctl.lock);
	i = find(ctx);
	if (i < 0 && on && cache_ctl.n < MAX_CTX) {
		i = cache_ctl.n++;
		memset(&cache_ctl.c[i], 0, sizeof cache_ctl.c[i]);
		cache_ctl.c[i].ctx = ctx;
		drv->cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, tly_cu_device(dev)->dev);
		cache_ctl.c[i].size = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
		if (drv->cuMemAlloc(&cache_ctl.c[i].buf, cache_ctl.c[i].size) != CUDA_SUCCESS) {
			cache_ctl.c[i].buf = 0;
			rc = tly_err_set(PAPI_ENOMEM, "TALLY_CUDA_CACHE=flush: no %zu bytes of GPU memory for the "
					 "L2 flush", cache_ctl.c[i].size);
		}
	}
	if (i >= 0)
		cache_ctl.c[i].armed += on ? 1 : cache_ctl.c[i].armed > 0 ? -1 : 0;
	pthread_mutex_unlock(&cache_ctl.lock);
	return rc;
}

void tly_cu_cache_before_launch(CUcontext ctx, CUstream stream)
{
	CUdeviceptr buf = 0;
	size_t size = 0;
	unsigned char v = 0;
	CUstreamCaptureStatus cap = CU_STREAM_CAPTURE_STATUS_NONE;
	int i;

	if (cache_ctl.mode != 1)
		return;
	pthread_mutex_lock(&cache_ctl.lock);
	i = find(ctx);
	if (i >= 0 && cache_ctl.c[i].armed) {
		buf = cache_ctl.c[i].buf;
		size = cache_ctl.c[i].size;
		v = cache_ctl.fill++;
	}
	pthread_mutex_unlock(&cache_ctl.lock);
	if (!buf)
		return;
	/* a stream being captured into a CUDA graph would capture the flush */
	if (tly_cu_libs()->drv->cuStreamIsCapturing(stream, &cap) != CUDA_SUCCESS ||
	    cap != CU_STREAM_CAPTURE_STATUS_NONE)
		return;
	tly_cu_libs()->drv->cuMemsetD8Async(buf, v, size, stream);
}

void tly_cu_cache_ctx_gone(CUcontext ctx)
{
	int i;

	pthread_mutex_lock(&cache_ctl.lock);
	i = find(ctx);
	if (i >= 0) {   /* the context's memory goes with it */
		cache_ctl.c[i] = cache_ctl.c[--cache_ctl.n];
	}
	pthread_mutex_unlock(&cache_ctl.lock);
}
