/*
 * cuda_ctxreg.c - what Tally knows per CUDA context: kernel replay on or
 * off, the collection mode, the application-replay pass and its image file, who profiles it (the range profiler allows one
 * session per context), and the kernels launched since the owner's last
 * harvest (to name AutoRange ranges).
 */
#include "cuda_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "services/err_detail.h"

#define MAX_CTX 64
#define MAX_LAUNCH_NAMES 4096

struct ctx_rec {
	CUcontext ctx;
	int replay;
	int mode;
	int passes;           /* passes of the owner's config (replay updates) */
	int user_pass;        /* application replay: pass + 1 (0: off) */
	char image[512];      /* ... and its counter data image file */
	const void *owner;
	size_t nlaunch;
	char **launch;        /* names, MAX_LAUNCH_NAMES at most */
};

static struct {
	pthread_mutex_t lock;
	int n;
	struct ctx_rec rec[MAX_CTX];
	CUcontext primary[TLY_CU_MAX_DEV];
} ctx_registry = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Record of ctx, created when `create`; call with the lock held. */
static struct ctx_rec *find(CUcontext ctx, int create)
{
	for (int i = 0; i < ctx_registry.n; i++)
		if (ctx_registry.rec[i].ctx == ctx)
			return &ctx_registry.rec[i];
	if (!create || ctx_registry.n == MAX_CTX)
		return NULL;
	memset(&ctx_registry.rec[ctx_registry.n], 0, sizeof ctx_registry.rec[ctx_registry.n]);
	ctx_registry.rec[ctx_registry.n].ctx = ctx;
	return &ctx_registry.rec[ctx_registry.n++];
}

int tly_cu_ctx_for_device(int dev, CUcontext *ctx)
{
	const struct tly_cu_drv *drv = tly_cu_libs() ? tly_cu_libs()->drv : NULL;
	CUcontext cur = NULL;
	CUdevice d;

	if (!drv || !tly_cu_device(dev) || tly_cu_device(dev)->host_only)
		return tly_err_set(PAPI_ENOSUPP, "GPU %d cannot be profiled (no driver or host-only)", dev);
	if (drv->cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur && drv->cuCtxGetDevice(&d) == CUDA_SUCCESS &&
	    d == tly_cu_device(dev)->dev) {
		*ctx = cur;
		return PAPI_OK;
	}
	return tly_cu_ctx_primary(drv, dev, tly_cu_device(dev)->dev, ctx);
}

/* cuda_ctx_warm.c's join, registered when it starts its thread: the
 * registry is below the background retain and calls it only through this. */
static void (*_Atomic warm_join)(void);

void tly_cu_ctxreg_on_shutdown(void (*join)(void))
{
	atomic_store(&warm_join, join);
}

int tly_cu_ctx_primary(const struct tly_cu_drv *drv, int dev, CUdevice d, CUcontext *ctx)
{
	int rc = PAPI_OK;

	if (dev < 0 || dev >= TLY_CU_MAX_DEV)
		return tly_err_set(PAPI_EINVAL, "no GPU device %d", dev);
	pthread_mutex_lock(&ctx_registry.lock);   /* held: a second caller waits for the first */
	if (!ctx_registry.primary[dev]) {
		double t = tly_cu_time_start();

		rc = tly_cu_drv_err(drv->cuDevicePrimaryCtxRetain(&ctx_registry.primary[dev], d),
				    "cuDevicePrimaryCtxRetain");
		if (rc != PAPI_OK)
			ctx_registry.primary[dev] = NULL;
		tly_cu_time_end("cuDevicePrimaryCtxRetain (Tally creates the context)", t);
	}
	*ctx = ctx_registry.primary[dev];
	pthread_mutex_unlock(&ctx_registry.lock);
	return rc;
}

int tly_cu_ctx_resolve(void *in, CUcontext *ctx, int *device)
{
	const struct tly_cu_drv *drv;
	CUdevice d;
	int rc = tly_cu_api_ready();

	if (rc != PAPI_OK)
		return rc;
	drv = tly_cu_libs()->drv;
	*ctx = (CUcontext)in;
	if (!*ctx && (drv->cuCtxGetCurrent(ctx) != CUDA_SUCCESS || !*ctx))
		rc = tly_cu_ctx_for_device(0, ctx);
	if (rc != PAPI_OK)
		return rc;
	rc = tly_cu_drv_err(drv->cuCtxPushCurrent(*ctx), "cuCtxPushCurrent");
	if (rc != PAPI_OK)
		return rc;
	rc = tly_cu_drv_err(drv->cuCtxGetDevice(&d), "cuCtxGetDevice");
	drv->cuCtxPopCurrent(&(CUcontext){ 0 });
	*device = -1;
	for (int i = 0; i < tly_cu_ndevices(); i++)
		if (tly_cu_device(i)->dev == d)
			*device = i;
	if (rc == PAPI_OK && *device < 0)
		rc = tly_err_set(PAPI_EINVAL, "context's device is not visible to Tally");
	return rc;
}

int tly_cu_ctx_claim(CUcontext ctx, const void *owner)
{
	int rc = PAPI_OK;
	struct ctx_rec *r;

	pthread_mutex_lock(&ctx_registry.lock);
	r = find(ctx, 1);
	if (!r)
		rc = tly_err_set(PAPI_ENOMEM, "too many CUDA contexts");
	else if (r->owner && r->owner != owner)
		rc = tly_err_set(PAPI_ECNFLCT, "a profiler is already attached to this CUDA context "
				 "(another group, group set or PAPI event set is enabled on it)");
	else {
		r->owner = owner;
		r->nlaunch = 0;
	}
	pthread_mutex_unlock(&ctx_registry.lock);
	return rc;
}

void tly_cu_ctx_release(CUcontext ctx, const void *owner)
{
	struct ctx_rec *r;

	pthread_mutex_lock(&ctx_registry.lock);
	r = find(ctx, 0);
	if (r && r->owner == owner) {
		r->owner = NULL;
		r->passes = 0;
	}
	pthread_mutex_unlock(&ctx_registry.lock);
}

static int set_field(CUcontext ctx, int which, int v)
{
	struct ctx_rec *r;

	pthread_mutex_lock(&ctx_registry.lock);
	r = find(ctx, 1);
	if (r && which == 0)
		r->replay = v;
	else if (r && which == 1)
		r->mode = v;
	else if (r)
		r->passes = v;
	pthread_mutex_unlock(&ctx_registry.lock);
	return r ? PAPI_OK : tly_err_set(PAPI_ENOMEM, "too many CUDA contexts");
}

static int get_field(CUcontext ctx, int which)
{
	struct ctx_rec *r;
	int v = 0;

	pthread_mutex_lock(&ctx_registry.lock);
	r = find(ctx, 0);
	if (r)
		v = which == 0 ? r->replay : r->mode;
	pthread_mutex_unlock(&ctx_registry.lock);
	return v;
}

int tly_cu_ctx_set_replay(CUcontext ctx, int on) { return set_field(ctx, 0, on); }
int tly_cu_ctx_replay(CUcontext ctx) { return get_field(ctx, 0); }
int tly_cu_ctx_set_mode(CUcontext ctx, int mode) { return set_field(ctx, 1, mode); }
int tly_cu_ctx_mode(CUcontext ctx) { return get_field(ctx, 1); }
void tly_cu_ctx_set_passes(CUcontext ctx, int passes) { set_field(ctx, 2, passes); }

int tly_cu_ctx_set_user_pass(CUcontext ctx, int pass, const char *image)
{
	struct ctx_rec *r;

	pthread_mutex_lock(&ctx_registry.lock);
	r = find(ctx, 1);
	if (r) {
		r->user_pass = pass >= 0 ? pass + 1 : 0;
		snprintf(r->image, sizeof r->image, "%s", pass >= 0 && image ? image : "");
	}
	pthread_mutex_unlock(&ctx_registry.lock);
	return r ? PAPI_OK : tly_err_set(PAPI_ENOMEM, "too many CUDA contexts");
}

int tly_cu_ctx_user_pass(CUcontext ctx, char *image, size_t len)
{
	struct ctx_rec *r;
	int pass = -1;

	pthread_mutex_lock(&ctx_registry.lock);
	r = find(ctx, 0);
	if (r && r->user_pass) {
		pass = r->user_pass - 1;
		snprintf(image, len, "%s", r->image);
	}
	pthread_mutex_unlock(&ctx_registry.lock);
	return pass;
}

int tly_cu_any_replay(void)
{
	int any = 0;

	pthread_mutex_lock(&ctx_registry.lock);
	for (int i = 0; i < ctx_registry.n; i++)
		any |= ctx_registry.rec[i].replay;
	pthread_mutex_unlock(&ctx_registry.lock);
	return any;
}

void tly_cu_ctx_note_launch(CUcontext ctx, const char *name, int *replay_passes)
{
	struct ctx_rec *r;

	*replay_passes = 0;
	pthread_mutex_lock(&ctx_registry.lock);
	r = find(ctx, 0);
	if (r && r->owner) {
		if (!r->launch)
			r->launch = calloc(MAX_LAUNCH_NAMES, sizeof *r->launch);
		if (r->launch && r->nlaunch < MAX_LAUNCH_NAMES) {
			free(r->launch[r->nlaunch]);
			r->launch[r->nlaunch] = strdup(name);
		}
		r->nlaunch++;
		*replay_passes = r->passes;
	}
	pthread_mutex_unlock(&ctx_registry.lock);
}

char *tly_cu_ctx_launch_name(CUcontext ctx, size_t i)
{
	struct ctx_rec *r;
	char *name = NULL;

	pthread_mutex_lock(&ctx_registry.lock);
	r = find(ctx, 0);
	if (r && r->launch && i < r->nlaunch && i < MAX_LAUNCH_NAMES && r->launch[i])
		name = strdup(r->launch[i]);
	pthread_mutex_unlock(&ctx_registry.lock);
	return name;
}

void tly_cu_ctx_clear_launches(CUcontext ctx)
{
	struct ctx_rec *r;

	pthread_mutex_lock(&ctx_registry.lock);
	r = find(ctx, 0);
	if (r)
		r->nlaunch = 0;
	pthread_mutex_unlock(&ctx_registry.lock);
}

void tly_cu_ctxreg_shutdown(void)
{
	const struct tly_cu_drv *drv = tly_cu_libs() ? tly_cu_libs()->drv : NULL;

	void (*join)(void) = atomic_load(&warm_join);

	if (join)
		join();   /* a context retained in the background is released below */
	pthread_mutex_lock(&ctx_registry.lock);
	for (int i = 0; i < ctx_registry.n; i++) {
		for (size_t k = 0; ctx_registry.rec[i].launch && k < MAX_LAUNCH_NAMES; k++)
			free(ctx_registry.rec[i].launch[k]);
		free(ctx_registry.rec[i].launch);
	}
	ctx_registry.n = 0;
	for (int d = 0; d < TLY_CU_MAX_DEV; d++) {
		if (ctx_registry.primary[d] && drv && tly_cu_device(d))
			drv->cuDevicePrimaryCtxRelease(tly_cu_device(d)->dev);
		ctx_registry.primary[d] = NULL;
	}
	pthread_mutex_unlock(&ctx_registry.lock);
}

const uint8_t *tly_cu_device_avail_any(int index)
{
	struct tly_cu_device *d = tly_cu_device(index);
	CUcontext ctx;

	if (!d || d->host_only || !d->profiling_ok)
		return NULL;
	if (!d->avail && !tly_cu_device_avail(index, NULL) && tly_cu_ctx_for_device(index, &ctx) == PAPI_OK)
		tly_cu_device_avail(index, ctx);   /* not in the disk cache: from the GPU */
	return d->avail;
}
