/*
 * cuda_callbacks.c - Tally's CUPTI subscriber: kernel launches (driver API
 * only, so a runtime launch is seen once), attribution hook, replay-update
 * notifications.  CUPTI allows one subscriber per process; when another
 * tool holds it, Tally records its name and carries on without GPU data.
 */
#include "cuda_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "services/err_detail.h"
#include "tally_shared.h"

static struct {
	pthread_mutex_t lock;
	int tried;
	int rc;
	CUpti_SubscriberHandle sub;
	char status[512];
	tally_gpu_launch_hook_fn hook;
	void *hook_ud;
	tally_gpu_replay_update_fn replay_fn;
	void *replay_ud;
} subscriber = { .lock = PTHREAD_MUTEX_INITIALIZER };

static const CUpti_driver_api_trace_cbid launch_cbids[] = {
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
};

static const CUpti_CallbackId resource_cbids[] = {
	CUPTI_CBID_RESOURCE_MODULE_LOADED, CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING,
	CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING, CUPTI_CBID_RESOURCE_CONTEXT_CREATED,
};

/* The device of the launch's context.  Asking the driver takes three
 * calls (push, get device, pop) at every launch; a context's uid is never
 * reused in a process, so the thread keeps the last answer per uid. */
static int device_of(CUcontext ctx, uint32_t uid)
{
	static _Thread_local struct { uint32_t uid; int dev; } last;
	CUdevice d;
	int dev = -1;
	const struct tly_cu_drv *drv = tly_cu_libs()->drv;

	if (uid && last.uid == uid)
		return last.dev;
	if (drv->cuCtxPushCurrent(ctx) != CUDA_SUCCESS)
		return -1;
	if (drv->cuCtxGetDevice(&d) == CUDA_SUCCESS)
		for (int i = 0; i < tly_cu_ndevices(); i++)
			if (tly_cu_device(i)->dev == d)
				dev = i;
	drv->cuCtxPopCurrent(&ctx);
	if (dev >= 0) {
		last.uid = uid;
		last.dev = dev;
	}
	return dev;
}

/* Demangled names of launched functions, by symbol: demangling a
 * PyTorch name (up to 5 kB) at every launch cost more than the launch.
 * Entries stay to the end (the names are handed out); a full probe
 * sequence falls back to a copy the caller frees. */
#define DM_SLOTS 4096
#define DM_PROBE 16
static struct {
	pthread_mutex_t lock;
	struct { char *sym, *name; } e[DM_SLOTS];
} name_cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static const char *demangled(const char *sym, char **owned)
{
	size_t h = sym ? (size_t)(((uintptr_t)sym >> 4) * 2654435761u) % DM_SLOTS : 0;
	char *d, *m;

	*owned = NULL;
	if (!sym)
		return "?";
	pthread_mutex_lock(&name_cache.lock);
	for (int i = 0; i < DM_PROBE; i++) {
		size_t k = (h + (size_t)i) % DM_SLOTS;

		if (name_cache.e[k].sym && !strcmp(name_cache.e[k].sym, sym)) {
			d = name_cache.e[k].name;
			pthread_mutex_unlock(&name_cache.lock);
			return d;
		}
	}
	pthread_mutex_unlock(&name_cache.lock);
	d = tly_cu_demangle_dup(sym);
	m = strdup(sym);
	if (!d || !m) {
		free(m);
		*owned = d;
		return d ? d : "?";
	}
	pthread_mutex_lock(&name_cache.lock);
	for (int i = 0; i < DM_PROBE && m; i++) {
		size_t k = (h + (size_t)i) % DM_SLOTS;

		if (!name_cache.e[k].sym) {
			name_cache.e[k].sym = m;
			name_cache.e[k].name = d;
			m = NULL;
		}
	}
	pthread_mutex_unlock(&name_cache.lock);
	if (m) {   /* no free slot (or another thread stored it meanwhile) */
		free(m);
		*owned = d;
	}
	return d;
}

/* The stream a launch goes to (its parameters by callback id). */
CUstream tly_cu_launch_stream(CUpti_CallbackId id, const void *p)
{
	if (!p)
		return NULL;
	switch (id) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
		return ((const cuLaunchKernel_params *)p)->hStream;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
		const CUlaunchConfig *c = ((const cuLaunchKernelEx_params *)p)->config;

		return c ? c->hStream : NULL;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
		return ((const cuLaunchCooperativeKernel_params *)p)->hStream;
	default:
		return NULL;
	}
}

/* TALLY_CUDA_TIMING: the launch call between Tally's entry and exit
 * callbacks (the driver's and CUPTI's work, the profiler's included). */
static _Thread_local double launch_t0;

/* The name found at a launch's entry, for its exit (same correlation id
 * and symbol): one name lookup per launch, not two (a strcmp of names up
 * to 5 kB and a lock).  Only names of the cache, which stay. */
static _Thread_local struct { uint32_t corr; const char *sym, *name; } at_entry;

static const char *launch_name(const CUpti_CallbackData *cd, char **owned)
{
	const char *name;

	*owned = NULL;
	if (cd->callbackSite == CUPTI_API_EXIT && at_entry.name && cd->symbolName == at_entry.sym &&
	    cd->correlationId == at_entry.corr)
		return at_entry.name;
	name = demangled(cd->symbolName, owned);
	if (cd->callbackSite == CUPTI_API_ENTER) {
		at_entry.corr = cd->correlationId;
		at_entry.sym = cd->symbolName;
		at_entry.name = *owned || !cd->symbolName ? NULL : name;
	}
	return name;
}

/* The parts above that follow the subscriber (tly_cu_cb_follow): slots
 * taken once, never freed, read without a lock. */
#define MAX_FOLLOWERS 4
static const struct tly_cu_cb_follower *_Atomic followers[MAX_FOLLOWERS];

void tly_cu_cb_follow(const struct tly_cu_cb_follower *f)
{
	for (int i = 0; i < MAX_FOLLOWERS; i++) {
		const struct tly_cu_cb_follower *seen = NULL;

		/* taken by f (now or by a racing call) or taken by us: done */
		if (atomic_compare_exchange_strong(&followers[i], &seen, f) || seen == f)
			return;
	}
}

static const struct tly_cu_cb_follower *follower(int i)
{
	return atomic_load_explicit(&followers[i], memory_order_acquire);
}

/* Launches this thread makes itself (replay passes, cuda_replay_own.c). */
static _Thread_local int quiet;

void tly_cu_cb_quiet(int on)
{
	quiet = on;
}

static void on_launch(CUpti_CallbackId id, const CUpti_CallbackData *cd)
{
	if (quiet)
		return;
	double t = tly_cu_time_start();
	char *owned;

	if (t > 0 && cd->callbackSite == CUPTI_API_EXIT && launch_t0 > 0)
		tly_cu_time_end("launch call between callbacks", launch_t0);
	const char *name;
	tally_gpu_launch_t l = { .size = sizeof l };
	tally_gpu_launch_hook_fn hook;
	tally_gpu_replay_update_fn rfn;
	void *hud, *rud;
	int passes = 0;

	pthread_mutex_lock(&subscriber.lock);
	hook = subscriber.hook;
	hud = subscriber.hook_ud;
	rfn = subscriber.replay_fn;
	rud = subscriber.replay_ud;
	pthread_mutex_unlock(&subscriber.lock);
	name = launch_name(cd, &owned);
	l.phase = cd->callbackSite == CUPTI_API_EXIT;
	l.name = name;
	l.mangled = cd->symbolName;
	l.correlation_id = cd->correlationId;
	l.context_uid = cd->contextUid;
	l.context = cd->context;
	l.thread = (unsigned long)pthread_self();
	l.tag = l.phase && cd->correlationData ? *cd->correlationData : 0;
	if (hook) {
		l.device = device_of(cd->context, cd->contextUid);
		uint64_t tag = hook(&l, hud);

		if (!l.phase && cd->correlationData)
			*cd->correlationData = tag;
	}
	if (!l.phase) {
		for (int i = 0; i < MAX_FOLLOWERS; i++)
			if (follower(i) && follower(i)->before_launch)
				follower(i)->before_launch(cd->context, tly_cu_launch_stream(id, cd->functionParams));
		tly_cu_cache_before_launch(cd->context, tly_cu_launch_stream(id, cd->functionParams));
	}
	if (l.phase) {
		for (int i = 0; i < MAX_FOLLOWERS; i++)
			if (follower(i) && follower(i)->note_launch)
				follower(i)->note_launch(cd->context, cd->correlationId, name);
		tly_cu_ctx_note_launch(cd->context, name, &passes);
		for (int i = 0; i < MAX_FOLLOWERS; i++)
			if (follower(i) && follower(i)->after_launch)
				follower(i)->after_launch(cd->context, id, cd->functionParams);
		/* Under KernelReplay CUPTI has replayed the kernel once per
		 * pass by the time the launch call returns. */
		if (passes > 0 && rfn)
			rfn(name, passes, rud);
	}
	free(owned);
	tly_cu_time_end(l.phase ? "launch callback (exit)" : "launch callback (entry)", t);
	if (!l.phase)
		launch_t0 = tly_cu_time_start();
}

/* PC sampling: cubins for source lines, drains before unload/teardown. */
static void on_resource(CUpti_CallbackId id, const CUpti_ResourceData *rd)
{
	const CUpti_ModuleResourceData *md = rd->resourceDescriptor;

	for (int i = 0; i < MAX_FOLLOWERS; i++) {
		const struct tly_cu_cb_follower *f = follower(i);

		if (!f)
			continue;
		if (id == CUPTI_CBID_RESOURCE_MODULE_LOADED && md && f->module_loaded)
			f->module_loaded(rd->context, md->pCubin, md->cubinSize);
		else if (id == CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING && f->module_unloading)
			f->module_unloading(rd->context);
		else if (id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING && f->ctx_destroying)
			f->ctx_destroying(rd->context);
		else if (id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED && f->ctx_created)
			f->ctx_created(rd->context);
	}
	if (id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
		tly_cu_cache_ctx_gone(rd->context);
}

static void CUPTIAPI callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
	(void)ud;
	if (dom == CUPTI_CB_DOMAIN_RESOURCE)
		on_resource(id, data);
	if (dom != CUPTI_CB_DOMAIN_DRIVER_API)
		return;
	for (size_t i = 0; i < sizeof launch_cbids / sizeof launch_cbids[0]; i++)
		if (id == (CUpti_CallbackId)launch_cbids[i])
			on_launch(id, data);
}

void tly_cu_cb_dispatch(CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
	callback(NULL, dom, id, data);
}

static int subscribe_locked(void)
{
	const struct tly_cu_pti *pti = tly_cu_libs()->pti;
	char other[256] = "";
	CUpti_SubscriberParams sp = { .structSize = CUpti_SubscriberParams_STRUCT_SIZE };
	CUptiResult r;

	if (tly_cu_cupti_yields()) {
		snprintf(subscriber.status, sizeof subscriber.status,
			 "TALLY_CUPTI=app: CUPTI's subscription is left to the "
			 "application's own tool; Tally's GPU features that need it are off");
		return tly_err_set(PAPI_ECNFLCT, "%s", subscriber.status);
	}
	sp.subscriberName = "Tally";
	sp.oldSubscriberName = other;
	sp.oldSubscriberSize = sizeof other;
	r = pti->cuptiSubscribe_v2(&subscriber.sub, callback, NULL, &sp);
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
		snprintf(subscriber.status, sizeof subscriber.status, "another CUPTI subscriber is attached (%s): %s; "
			 "Tally carries on without GPU data", other[0] ? other : "unnamed", tly_cu_pti_str(r));
		return tly_err_set(PAPI_ECNFLCT, "%s", subscriber.status);
	}
	if (r != CUPTI_SUCCESS) {
		snprintf(subscriber.status, sizeof subscriber.status, "cuptiSubscribe_v2: %s", tly_cu_pti_str(r));
		return tly_cu_pti_err(r, "cuptiSubscribe_v2");
	}
	for (size_t i = 0; i < sizeof launch_cbids / sizeof launch_cbids[0]; i++)
		pti->cuptiEnableCallback(1, subscriber.sub, CUPTI_CB_DOMAIN_DRIVER_API,
					 (CUpti_CallbackId)launch_cbids[i]);
	for (size_t i = 0; i < sizeof resource_cbids / sizeof resource_cbids[0]; i++)
		pti->cuptiEnableCallback(1, subscriber.sub, CUPTI_CB_DOMAIN_RESOURCE, resource_cbids[i]);
	return PAPI_OK;
}

int tly_cu_cupti_yields(void)
{
	char who[8];

	tly_setting_pick(TLY_SET_cupti, who, sizeof who);
	return !strcmp(who, "app");
}

int tly_cu_cb_init(void)
{
	pthread_mutex_lock(&subscriber.lock);
	if (!subscriber.tried) {
		subscriber.tried = 1;
		subscriber.status[0] = '\0';
		subscriber.rc = subscribe_locked();
	}
	pthread_mutex_unlock(&subscriber.lock);
	if (subscriber.rc != PAPI_OK)
		tly_err_set(subscriber.rc, "%s", subscriber.status);
	return subscriber.rc;
}

void tly_cu_cb_shutdown(void)
{
	pthread_mutex_lock(&subscriber.lock);
	if (subscriber.tried && subscriber.rc == PAPI_OK)
		tly_cu_libs()->pti->cuptiUnsubscribe(subscriber.sub);
	subscriber.tried = 0;
	subscriber.hook = NULL;
	subscriber.replay_fn = NULL;
	pthread_mutex_unlock(&subscriber.lock);
}

const char *tly_cu_cb_status(void)
{
	return subscriber.status;
}

const char *tally_gpu_subscriber_status(void)
{
	return subscriber.status;
}

int tally_gpu_subscribed(void)
{
	int held;

	pthread_mutex_lock(&subscriber.lock);
	held = subscriber.tried && subscriber.rc == PAPI_OK;
	pthread_mutex_unlock(&subscriber.lock);
	return held;
}

/* The public API usable and Tally subscribed: PAPI_OK, else the error. */
static int subscribed(void)
{
	int rc = tly_cu_api_ready();

	return rc == PAPI_OK ? tly_cu_cb_init() : rc;
}

int tally_gpu_set_launch_hook(tally_gpu_launch_hook_fn fn, void *userdata)
{
	int rc = subscribed();

	if (rc != PAPI_OK)
		return rc;
	pthread_mutex_lock(&subscriber.lock);
	subscriber.hook = fn;
	subscriber.hook_ud = userdata;
	pthread_mutex_unlock(&subscriber.lock);
	return PAPI_OK;
}

int tally_gpu_kernel_replay_subscribe_update(tally_gpu_replay_update_fn fn, void *userdata)
{
	int rc = subscribed();

	if (rc != PAPI_OK)
		return rc;
	pthread_mutex_lock(&subscriber.lock);
	subscriber.replay_fn = fn;
	subscriber.replay_ud = userdata;
	pthread_mutex_unlock(&subscriber.lock);
	return PAPI_OK;
}

void tly_cu_cb_replay_notify(const char *kernel, int passes)
{
	tally_gpu_replay_update_fn fn;
	void *ud;

	pthread_mutex_lock(&subscriber.lock);
	fn = subscriber.replay_fn;
	ud = subscriber.replay_ud;
	pthread_mutex_unlock(&subscriber.lock);
	if (fn)
		fn(kernel, passes, ud);
}
