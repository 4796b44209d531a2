/*
 * cuda_pcsamp.c - PC sampling sessions, one per CUDA context
 * (tally_gpu_pcsampling_*).  Start/stop control is always configured so
 * that Tally can end a range, and drain its records, at any point; a
 * session that is not "paused" is started right after configuration.
 * Sessions live in one list guarded by one lock; CUPTI is called under it.
 * CUPTI may call back (module load/unload, context teardown) on the thread
 * that holds the lock, inside Enable or Disable: the hooks then act without
 * locking (`held`) instead of deadlocking.
 */
#include "components/cuda/common/cuda_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "papi.h"
#include "core/errors.h"

struct tly_pcs_sess {
	CUcontext ctx;
	int enabled, running, period, device;
	tally_gpu_pcsampling_config_t cfg;
	size_t nall;                  /* stall reasons of the device */
	char (*names)[CUPTI_STALL_REASON_STRING_SIZE];
	uint32_t *idx;
	size_t nsel;                  /* selected ones */
	uint32_t *sel;                /* positions in names[] */
	uint32_t *sel_idx;            /* their CUPTI indexes */
	uint8_t *counted;             /* not a "_not_issued" subset */
	struct tly_pcs_data *data;
	struct tly_pcs_sess *next;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct tly_pcs_sess *head;
	int want_cubins, serialized, exit_hook;
	int drain_on, drain_stop;
	unsigned drain_ms;
	pthread_t drain_thr;
} pcs = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

static _Thread_local int held;

static void lock(void)
{
	pthread_mutex_lock(&pcs.lock);
	held = 1;
}

static void unlock(void)
{
	held = 0;
	pthread_mutex_unlock(&pcs.lock);
}

static const struct tly_cu_pcs_fns *fns(void)
{
	return tly_cu_pcs_fns(NULL);
}

static struct tly_pcs_sess *find_locked(CUcontext ctx)
{
	for (struct tly_pcs_sess *s = pcs.head; s; s = s->next)
		if (s->ctx == ctx)
			return s;
	return NULL;
}

static void sess_free(struct tly_pcs_sess *s)
{
	tly_pcs_data_free(s->data);
	free(s->names);
	free(s->idx);
	free(s->sel);
	free(s->sel_idx);
	free(s->counted);
	free(s);
}

/* The stall reasons of the context's device, as CUPTI names them. */
static int get_reasons(struct tly_pcs_sess *s)
{
	CUpti_PCSamplingGetNumStallReasonsParams np = { .size = CUpti_PCSamplingGetNumStallReasonsParamsSize };
	CUpti_PCSamplingGetStallReasonsParams rp = { .size = CUpti_PCSamplingGetStallReasonsParamsSize };
	char **ptrs;
	int rc;

	np.ctx = s->ctx;
	np.numStallReasons = &s->nall;
	rc = tly_cu_pti_err(fns()->cuptiPCSamplingGetNumStallReasons(&np), "cuptiPCSamplingGetNumStallReasons");
	if (rc != PAPI_OK)
		return rc;
	s->names = calloc(s->nall + 1, sizeof *s->names);
	s->idx = calloc(s->nall + 1, sizeof *s->idx);
	ptrs = calloc(s->nall + 1, sizeof *ptrs);
	if (!s->names || !s->idx || !ptrs) {
		free(ptrs);
		return tly_err_set(PAPI_ENOMEM, "PC sampling: stall reason tables");
	}
	for (size_t i = 0; i < s->nall; i++)
		ptrs[i] = s->names[i];
	rp.ctx = s->ctx;
	rp.numStallReasons = s->nall;
	rp.stallReasonIndex = s->idx;
	rp.stallReasons = ptrs;
	rc = tly_cu_pti_err(fns()->cuptiPCSamplingGetStallReasons(&rp), "cuptiPCSamplingGetStallReasons");
	free(ptrs);
	return rc;
}

/* Does a requested token name this reason (full name or the part after
 * "_stalled_")? */
static int names_reason(const char *full, const char *tok, size_t len)
{
	const char *p = strstr(full, "_stalled_");

	if (strlen(full) == len && !strncmp(full, tok, len))
		return 1;
	return p && strlen(p + 9) == len && !strncmp(p + 9, tok, len);
}

/* Selected reasons: all, or those of the comma-separated list. */
static int select_reasons(struct tly_pcs_sess *s, const char *list)
{
	s->sel = calloc(s->nall + 1, sizeof *s->sel);
	s->sel_idx = calloc(s->nall + 1, sizeof *s->sel_idx);
	s->counted = calloc(s->nall + 1, 1);
	if (!s->sel || !s->sel_idx || !s->counted)
		return tly_err_set(PAPI_ENOMEM, "PC sampling: stall reason selection");
	for (const char *p = list && *list ? list : NULL; p && *p;) {
		size_t len = strcspn(p, ",");
		int hit = 0;

		for (size_t i = 0; i < s->nall; i++)
			if (names_reason(s->names[i], p, len) && !hit) {
				hit = 1;
				s->sel[s->nsel++] = (uint32_t)i;
			}
		if (!hit && len)
			return tly_err_set(PAPI_EINVAL, "PC sampling: unknown stall reason '%.*s' (%zu reasons, "
					   "e.g. %s)", (int)len, p, s->nall, s->nall ? s->names[0] : "none");
		p += len + (p[len] == ',');
	}
	if (!list || !*list)
		for (size_t i = 0; i < s->nall; i++)
			s->sel[s->nsel++] = (uint32_t)i;
	for (size_t i = 0; i < s->nsel; i++) {
		const char *nm = s->names[s->sel[i]];
		size_t l = strlen(nm);

		s->sel_idx[i] = s->idx[s->sel[i]];
		s->counted[i] = !(l > 11 && !strcmp(nm + l - 11, "_not_issued"));
	}
	return PAPI_OK;
}

#define ATTR(t) (CUpti_PCSamplingConfigurationInfo){ .attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_##t }

static int configure(struct tly_pcs_sess *s)
{
	CUpti_PCSamplingConfigurationInfo a[10];
	CUpti_PCSamplingConfigurationInfoParams p = { .size = CUpti_PCSamplingConfigurationInfoParamsSize };
	const tally_gpu_pcsampling_config_t *c = &s->cfg;
	size_t n = 0;
	int rc;

	a[n] = ATTR(COLLECTION_MODE);
	a[n++].attributeData.collectionModeData.collectionMode = c->mode == TALLY_GPU_PCSAMP_SERIALIZED ?
		CUPTI_PC_SAMPLING_COLLECTION_MODE_KERNEL_SERIALIZED : CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
	a[n] = ATTR(STALL_REASON);
	a[n].attributeData.stallReasonData.stallReasonCount = s->nsel;
	a[n++].attributeData.stallReasonData.pStallReasonIndex = s->sel_idx;
	a[n] = ATTR(ENABLE_START_STOP_CONTROL);
	a[n++].attributeData.enableStartStopControlData.enableStartStopControl = 1;
	a[n] = ATTR(OUTPUT_DATA_FORMAT);
	a[n++].attributeData.outputDataFormatData.outputDataFormat = CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
	a[n] = ATTR(SAMPLING_DATA_BUFFER);
	a[n++].attributeData.samplingDataBufferData.samplingDataBuffer = tly_pcs_data_cfgbuf(s->data);
	if (c->period) {
		a[n] = ATTR(SAMPLING_PERIOD);
		a[n++].attributeData.samplingPeriodData.samplingPeriod = (uint32_t)c->period;
	}
	if (c->scratch_bytes) {
		a[n] = ATTR(SCRATCH_BUFFER_SIZE);
		a[n++].attributeData.scratchBufferSizeData.scratchBufferSize = c->scratch_bytes;
	}
	if (c->hw_bytes) {
		a[n] = ATTR(HARDWARE_BUFFER_SIZE);
		a[n++].attributeData.hardwareBufferSizeData.hardwareBufferSize = c->hw_bytes;
	}
	if (c->worker_sleep_ms) {
		a[n] = ATTR(WORKER_THREAD_PERIODIC_SLEEP_SPAN);
		a[n++].attributeData.workerThreadPeriodicSleepSpanData.workerThreadPeriodicSleepSpan = c->worker_sleep_ms;
	}
	p.ctx = s->ctx;
	p.numAttributes = n;
	p.pPCSamplingConfigurationInfo = a;
	rc = tly_cu_pti_err(fns()->cuptiPCSamplingSetConfigurationAttribute(&p),
			    "cuptiPCSamplingSetConfigurationAttribute");
	for (size_t i = 0; rc != PAPI_OK && i < n; i++)
		if (a[i].attributeStatus != CUPTI_SUCCESS)
			return tly_err_set(rc, "PC sampling: CUPTI refused attribute %d: %s",
					   (int)a[i].attributeType, tly_cu_pti_str(a[i].attributeStatus));
	return rc;
}

/* The period CUPTI uses (its default when none was asked for). */
static void read_period(struct tly_pcs_sess *s)
{
	CUpti_PCSamplingConfigurationInfo a = ATTR(SAMPLING_PERIOD);
	CUpti_PCSamplingConfigurationInfoParams p = { .size = CUpti_PCSamplingConfigurationInfoParamsSize };

	p.ctx = s->ctx;
	p.numAttributes = 1;
	p.pPCSamplingConfigurationInfo = &a;
	s->period = s->cfg.period;
	if (fns()->cuptiPCSamplingGetConfigurationAttribute(&p) == CUPTI_SUCCESS)
		s->period = (int)a.attributeData.samplingPeriodData.samplingPeriod;
}

static int start_ctx(CUcontext ctx)
{
	CUpti_PCSamplingStartParams p = { .size = CUpti_PCSamplingStartParamsSize };

	p.ctx = ctx;
	return tly_cu_pti_err(fns()->cuptiPCSamplingStart(&p), "cuptiPCSamplingStart");
}

static int stop_ctx(CUcontext ctx)
{
	CUpti_PCSamplingStopParams p = { .size = CUpti_PCSamplingStopParamsSize };

	p.ctx = ctx;
	return tly_cu_pti_err(fns()->cuptiPCSamplingStop(&p), "cuptiPCSamplingStop");
}

/* Stop the range and drain it: the stop's records first, then GetData. */
static int stop_locked(struct tly_pcs_sess *s)
{
	int rc = PAPI_OK;

	if (s->running) {
		rc = stop_ctx(s->ctx);
		s->running = 0;
	}
	if (s->enabled) {
		int rc2 = tly_pcs_data_drain(s->data, s->ctx);

		rc = rc != PAPI_OK ? rc : rc2;
	}
	return rc;
}

static int disable_locked(struct tly_pcs_sess *s)
{
	CUpti_PCSamplingDisableParams p = { .size = CUpti_PCSamplingDisableParamsSize };
	int rc, rc2;

	if (!s->enabled)
		return PAPI_OK;
	rc = stop_locked(s);
	p.ctx = s->ctx;
	rc2 = tly_cu_pti_err(fns()->cuptiPCSamplingDisable(&p), "cuptiPCSamplingDisable");
	/* Disable copies what was left into the configured buffer. */
	tly_pcs_data_take_cfgbuf(s->data);
	s->enabled = 0;
	pcs.serialized = 0;
	for (struct tly_pcs_sess *o = pcs.head; o; o = o->next)
		pcs.serialized |= o->enabled && o->cfg.mode == TALLY_GPU_PCSAMP_SERIALIZED;
	return rc != PAPI_OK ? rc : rc2;
}

static void *drain_main(void *arg)
{
	(void)arg;
	lock();
	while (!pcs.drain_stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += pcs.drain_ms / 1000;
		ts.tv_nsec += (long)(pcs.drain_ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&pcs.wake, &pcs.lock, &ts);
		for (struct tly_pcs_sess *s = pcs.head; s && !pcs.drain_stop; s = s->next)
			if (s->enabled)
				tly_pcs_data_drain(s->data, s->ctx);
	}
	unlock();
	return NULL;
}

/* At exit: stop the drain thread, then disable (and drain) every session. */
static void at_exit(void)
{
	int join;

	lock();
	join = pcs.drain_on;
	pcs.drain_stop = 1;
	pthread_cond_broadcast(&pcs.wake);
	unlock();
	if (join)
		pthread_join(pcs.drain_thr, NULL);
	lock();
	pcs.drain_on = 0;
	for (struct tly_pcs_sess *s = pcs.head; s; s = s->next)
		disable_locked(s);
	unlock();
}

static void hooks_locked(const tally_gpu_pcsampling_config_t *c)
{
	if (!pcs.exit_hook)
		pcs.exit_hook = atexit(at_exit) == 0;
	if (c->drain_ms && !pcs.drain_on && !pcs.drain_stop) {
		pcs.drain_ms = c->drain_ms;
		pcs.drain_on = pthread_create(&pcs.drain_thr, NULL, drain_main, NULL) == 0;
	}
}

static int open_locked(struct tly_pcs_sess *s)
{
	CUpti_PCSamplingEnableParams ep = { .size = CUpti_PCSamplingEnableParamsSize };
	int rc;

	ep.ctx = s->ctx;
	rc = tly_cu_pti_err(fns()->cuptiPCSamplingEnable(&ep), "cuptiPCSamplingEnable");
	if (rc != PAPI_OK)
		return rc;
	s->enabled = 1;
	rc = get_reasons(s);
	if (rc == PAPI_OK)
		rc = select_reasons(s, s->cfg.stalls);
	if (rc == PAPI_OK) {
		s->data = tly_pcs_data_new(s->cfg.max_pcs, s->nsel, s->sel_idx, s->counted);
		rc = s->data ? configure(s) : tly_err_set(PAPI_ENOMEM, "PC sampling: data buffers");
	}
	if (rc == PAPI_OK)
		read_period(s);
	if (rc == PAPI_OK && !s->cfg.start_paused) {
		rc = start_ctx(s->ctx);
		s->running = rc == PAPI_OK;
	}
	return rc;
}

static int check_cfg(const tally_gpu_pcsampling_config_t *c)
{
	if (c->size < sizeof *c)
		return tly_err_set(PAPI_EINVAL, "PC sampling: config size %zu, expected %zu", c->size, sizeof *c);
	if (c->period && (c->period < 5 || c->period > 31))
		return tly_err_set(PAPI_EINVAL, "PC sampling: period 2^%d: must be 2^5..2^31 cycles", c->period);
	if (c->mode && c->mode != TALLY_GPU_PCSAMP_CONTINUOUS && c->mode != TALLY_GPU_PCSAMP_SERIALIZED)
		return tly_err_set(PAPI_EINVAL, "PC sampling: mode %d unknown", c->mode);
	return PAPI_OK;
}

int tally_gpu_pcsampling_enable(void *ctx_in, const tally_gpu_pcsampling_config_t *cfg)
{
	tally_gpu_pcsampling_config_t env = { .size = sizeof env };
	const char *why = "";
	struct tly_pcs_sess *s, *old;
	CUcontext ctx;
	int dev, rc = tly_cu_ctx_resolve(ctx_in, &ctx, &dev);

	if (rc != PAPI_OK)
		return rc;
	if (!tly_cu_pcs_fns(&why))
		return tly_err_set(PAPI_ENOSUPP, "PC sampling unavailable: %s", why);
	if (!cfg && (rc = tally_gpu_pcsampling_config_from_env(&env)) != PAPI_OK)
		return rc;
	cfg = cfg ? cfg : &env;
	if ((rc = check_cfg(cfg)) != PAPI_OK)
		return rc;
	s = calloc(1, sizeof *s);
	if (!s)
		return tly_err_set(PAPI_ENOMEM, "PC sampling: session");
	s->ctx = ctx;
	s->device = dev;
	s->cfg = *cfg;
	s->cfg.size = sizeof s->cfg;
	s->cfg.stalls = NULL;
	s->cfg.max_pcs = cfg->max_pcs ? cfg->max_pcs : 4096;
	s->cfg.mode = cfg->mode ? cfg->mode : TALLY_GPU_PCSAMP_CONTINUOUS;
	lock();
	pcs.want_cubins = 1;
	unlock();
	/* Subscriber for cubins and launch names; without it (another tool
	 * holds CUPTI's subscription) samples have no source lines. */
	tly_cu_cb_init();
	lock();
	old = find_locked(ctx);
	if (old && old->enabled) {
		rc = tly_err_set(PAPI_EISRUN, "PC sampling already enabled on this context");
	} else {
		s->cfg.stalls = cfg->stalls;  /* read during open only */
		rc = open_locked(s);
		s->cfg.stalls = NULL;
	}
	if (rc == PAPI_OK) {
		for (struct tly_pcs_sess **pp = &pcs.head; *pp; pp = &(*pp)->next)
			if (*pp == old) {
				*pp = old->next;
				sess_free(old);
				break;
			}
		s->next = pcs.head;
		pcs.head = s;
		pcs.serialized |= s->cfg.mode == TALLY_GPU_PCSAMP_SERIALIZED;
		hooks_locked(&s->cfg);
	} else if (s->enabled) {
		CUpti_PCSamplingDisableParams p = { .size = CUpti_PCSamplingDisableParamsSize, .ctx = ctx };

		fns()->cuptiPCSamplingDisable(&p);
	}
	unlock();
	if (rc != PAPI_OK)
		sess_free(s);
	return rc;
}

/* The session of ctx (NULL: current context).  A known context pointer is
 * looked up first: its context may be gone (records kept after teardown). */
static struct tly_pcs_sess *lock_sess(void *ctx_in, int *rc)
{
	CUcontext ctx = (CUcontext)ctx_in;
	struct tly_pcs_sess *s = NULL;
	int dev;

	*rc = PAPI_OK;
	if (ctx) {
		lock();
		s = find_locked(ctx);
		if (s)
			return s;
		unlock();
	}
	*rc = tly_cu_ctx_resolve(ctx_in, &ctx, &dev);
	if (*rc != PAPI_OK)
		return NULL;
	lock();
	s = find_locked(ctx);
	if (s)
		return s;
	unlock();
	*rc = tly_err_set(PAPI_ENOTRUN, "PC sampling was never enabled on this context");
	return NULL;
}

int tally_gpu_pcsampling_start(void *ctx)
{
	int rc;
	struct tly_pcs_sess *s = lock_sess(ctx, &rc);

	if (!s)
		return rc;
	if (!s->enabled)
		rc = tly_err_set(PAPI_ENOTRUN, "PC sampling is disabled on this context");
	else if (!s->running) {
		rc = start_ctx(s->ctx);
		s->running = rc == PAPI_OK;
	}
	unlock();
	return rc;
}

int tally_gpu_pcsampling_stop(void *ctx)
{
	int rc;
	struct tly_pcs_sess *s = lock_sess(ctx, &rc);

	if (!s)
		return rc;
	rc = s->enabled ? stop_locked(s) : tly_err_set(PAPI_ENOTRUN, "PC sampling is disabled on this context");
	unlock();
	return rc;
}

int tally_gpu_pcsampling_flush(void *ctx)
{
	int rc;
	struct tly_pcs_sess *s = lock_sess(ctx, &rc);

	if (!s)
		return rc;
	rc = s->enabled ? tly_pcs_data_drain(s->data, s->ctx) : PAPI_OK;
	unlock();
	return rc;
}

int tally_gpu_pcsampling_disable(void *ctx)
{
	int rc;
	struct tly_pcs_sess *s = lock_sess(ctx, &rc);

	if (!s)
		return rc;
	rc = disable_locked(s);
	unlock();
	return rc;
}

int tally_gpu_pcsampling_reset(void *ctx)
{
	int rc;
	struct tly_pcs_sess *s = lock_sess(ctx, &rc);

	if (!s)
		return rc;
	rc = disable_locked(s);
	for (struct tly_pcs_sess **pp = &pcs.head; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	unlock();
	sess_free(s);
	return rc;
}

int tally_gpu_pcsampling_num_stall_reasons(void *ctx, int *n)
{
	int rc;
	struct tly_pcs_sess *s = lock_sess(ctx, &rc);

	if (!s)
		return rc;
	*n = (int)s->nsel;
	unlock();
	return PAPI_OK;
}

int tally_gpu_pcsampling_stall_reason(void *ctx, int i, char *name, size_t len, uint32_t *cupti_index)
{
	int rc;
	struct tly_pcs_sess *s = lock_sess(ctx, &rc);

	if (!s)
		return rc;
	if (i < 0 || (size_t)i >= s->nsel) {
		rc = tly_err_set(PAPI_EINVAL, "PC sampling: stall reason %d of %zu", i, s->nsel);
	} else {
		if (name && len)
			snprintf(name, len, "%s", s->names[s->sel[i]]);
		if (cupti_index)
			*cupti_index = s->sel_idx[i];
	}
	unlock();
	return rc;
}

int tally_gpu_pcsampling_get_stats(void *ctx, tally_gpu_pcsampling_stats_t *st)
{
	int rc;
	struct tly_pcs_sess *s;

	if (!st || st->size < sizeof *st)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_pcsampling_get_stats: st->size not set");
	s = lock_sess(ctx, &rc);
	if (!s)
		return rc;
	tly_pcs_data_stats(s->data, st);
	st->enabled = s->enabled;
	st->running = s->running;
	st->mode = s->cfg.mode;
	st->period = s->period;
	st->device = s->device;
	unlock();
	st->cubins = tly_pcs_cubin_count();
	return PAPI_OK;
}

static const char *launch_name(void *ud, uint32_t corr)
{
	(void)ud;
	return tly_pcs_launch_name(corr);
}

int tally_gpu_pcsampling_read(void *ctx, tally_gpu_pc_sample_fn fn, void *userdata)
{
	int rc;
	struct tly_pcs_sess *s;

	if (!fn)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_pcsampling_read: no callback");
	s = lock_sess(ctx, &rc);
	if (!s)
		return rc;
	rc = tly_pcs_data_walk(s->data, fn, userdata, launch_name, NULL);
	unlock();
	return rc;
}

/* ---- hooks from the CUPTI subscriber ---------------------------------------- */
int tly_cu_pcs_wants_cubins(void)
{
	int w;

	if (held)
		return pcs.want_cubins;
	lock();
	w = pcs.want_cubins;
	unlock();
	return w;
}

void tly_cu_pcs_module_loaded(CUcontext ctx, const void *cubin, size_t size)
{
	(void)ctx;
	if (tly_cu_pcs_wants_cubins())
		tly_pcs_cubin_add(cubin, size);
}

/* Continuous mode needs a drain before a module's PCs can be reused. */
void tly_cu_pcs_module_unloading(CUcontext ctx)
{
	if (held)
		return;   /* inside our own CUPTI call */
	lock();
	for (struct tly_pcs_sess *s = pcs.head; s; s = s->next)
		if (s->ctx == ctx && s->enabled)
			tly_pcs_data_drain(s->data, s->ctx);
	unlock();
}

void tly_cu_pcs_ctx_destroying(CUcontext ctx)
{
	if (held)
		return;
	lock();
	for (struct tly_pcs_sess *s = pcs.head; s; s = s->next)
		if (s->ctx == ctx)
			disable_locked(s);
	unlock();
}

void tly_cu_pcs_note_launch(CUcontext ctx, uint32_t correlation_id, const char *name)
{
	int on;

	(void)ctx;
	if (held) {
		on = pcs.serialized;
	} else {
		lock();
		on = pcs.serialized;
		unlock();
	}
	if (on)
		tly_pcs_launch_add(correlation_id, name);
}

int tally_gpu_pcsampling_contexts(void **ctxs, int *n)
{
	int k = 0;

	if (!n)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_pcsampling_contexts: n is NULL");
	lock();
	for (struct tly_pcs_sess *s = pcs.head; s; s = s->next, k++)
		if (ctxs && k < *n)
			ctxs[k] = s->ctx;
	unlock();
	*n = k;
	return PAPI_OK;
}
