/*
 * cuda_ctx_warm.c - tally_gpu_context_warm: the primary context of the
 * device to be profiled, retained on a thread of Tally's own while the
 * caller goes on into discovery.  The driver serialises cuInit, but
 * context creation and cuptiProfilerInitialize run side by side (H100:
 * 209-243 ms one after the other, 117-142 ms together).  The retained
 * context is the registry's (cuda_ctxreg.c): whoever asks for it first
 * waits for the other, and it is released with the others.  The thread
 * is joined at PAPI_shutdown or, at the latest, at exit.
 */
#include "cuda_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "papi.h"
#include "services/err_detail.h"

static struct {
	pthread_mutex_t lock;
	pthread_t th;
	int started, at_exit;
} warm = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void *retain(void *arg)
{
	const struct tly_cu_libs *l = tly_cu_load();
	int dev = (int)(intptr_t)arg;
	CUcontext ctx;
	CUdevice d;

	if (l->drv && l->drv->cuInit(0) == CUDA_SUCCESS && l->drv->cuDeviceGet(&d, dev) == CUDA_SUCCESS)
		(void)tly_cu_ctx_primary(l->drv, dev, d, &ctx);
	return NULL;
}

int tally_gpu_context_warm(int device)
{
	int rc = PAPI_OK;

	if (device < 0 || device >= TLY_CU_MAX_DEV)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_context_warm: no GPU device %d (0..%d)", device,
				   TLY_CU_MAX_DEV - 1);
	tly_cu_ctxreg_on_shutdown(tly_cu_ctx_warm_join);
	pthread_mutex_lock(&warm.lock);
	if (!warm.started) {
		if (pthread_create(&warm.th, NULL, retain, (void *)(intptr_t)device) == 0)
			warm.started = 1;
		else
			rc = tly_err_set(PAPI_ESYS, "tally_gpu_context_warm: no thread for the context");
		/* a process that ends at once must not tear the driver down
		 * under the retain: the thread is waited for at exit */
		if (warm.started && !warm.at_exit)
			warm.at_exit = atexit(tly_cu_ctx_warm_join) == 0;
	}
	pthread_mutex_unlock(&warm.lock);
	return rc;
}

void tly_cu_ctx_warm_join(void)
{
	pthread_mutex_lock(&warm.lock);
	if (warm.started) {
		pthread_join(warm.th, NULL);
		warm.started = 0;
	}
	pthread_mutex_unlock(&warm.lock);
}
