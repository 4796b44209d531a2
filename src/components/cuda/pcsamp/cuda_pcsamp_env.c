/*
 * cuda_pcsamp_env.c - TALLY_PCSAMP_* settings (src/settings/settings.def,
 * read with its one parser) into a tally_gpu_pcsampling_config_t, and automatic
 * sampling of every context (TALLY_PCSAMP=1).  Usable without the runtime.
 */
#include "cuda_pcsamp_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "services/err_detail.h"
#include "tally_shared.h"

static struct {
	pthread_mutex_t lock;
	int on;
	char status[512];
} autosamp = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A number setting (the table's grammar), at most max here; unset or
 * empty keeps *out. */
static int env_num(int id, unsigned long long max, unsigned long long *out)
{
	const char *v = tly_setting_raw(id);
	char why[512];
	long long x;

	if (!v)
		return PAPI_OK;
	if (tly_setting_num(id, &x, why, sizeof why) != 0)
		return tly_err_set(PAPI_EINVAL, "%s", why);
	if ((unsigned long long)x > max)
		return tly_err_set(PAPI_EINVAL, "%s=%s: not a number in 0..%llu", tly_setting_row(id)->env, v, max);
	*out = (unsigned long long)x;
	return PAPI_OK;
}

static int env_bool(int id, int *out)
{
	char why[512];
	int v;

	if (!tly_setting_raw(id))
		return PAPI_OK;
	if (tly_setting_bool(id, &v, why, sizeof why) != 0)
		return tly_err_set(PAPI_EINVAL, "%s", why);
	*out = v;
	return PAPI_OK;
}

/* PAPI_EINVAL with the parser's sentence for a CHOICE setting's bad word. */
static int env_word_error(int id)
{
	char why[512];

	tly_setting_check(id, tly_setting_raw(id), why, sizeof why);
	return tly_err_set(PAPI_EINVAL, "%s", why);
}

static int env_mode(int *mode)
{
	char w[32];

	if (tly_setting_word(TLY_SET_pcsamp_mode, tly_setting_raw(TLY_SET_pcsamp_mode), w, sizeof w) != 0)
		return env_word_error(TLY_SET_pcsamp_mode);
	*mode = strcmp(w, "continuous") ? TALLY_GPU_PCSAMP_SERIALIZED : TALLY_GPU_PCSAMP_CONTINUOUS;
	return PAPI_OK;
}

int tally_gpu_pcsampling_config_from_env(tally_gpu_pcsampling_config_t *cfg)
{
	unsigned long long period = 0, scratch = 0, hw = 0, maxpcs = 0, drain = 0, sleep = 0;
	int start = 1, rc;

	if (!cfg || cfg->size < sizeof *cfg)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_pcsampling_config_from_env: cfg->size not set");
	memset((char *)cfg + sizeof cfg->size, 0, sizeof *cfg - sizeof cfg->size);
	rc = env_mode(&cfg->mode);
	if (rc == PAPI_OK)
		rc = env_num(TLY_SET_pcsamp_period, 31, &period);
	if (rc == PAPI_OK && period && period < 5)
		rc = tly_err_set(PAPI_EINVAL, "TALLY_PCSAMP_PERIOD=%llu: the period is 2^5..2^31 cycles (5..31)",
				 period);
	if (rc == PAPI_OK)
		rc = env_num(TLY_SET_pcsamp_scratch, (unsigned long long)SIZE_MAX, &scratch);
	if (rc == PAPI_OK)
		rc = env_num(TLY_SET_pcsamp_hwbuf, (unsigned long long)SIZE_MAX, &hw);
	if (rc == PAPI_OK)
		rc = env_num(TLY_SET_pcsamp_max_pcs, 1u << 24, &maxpcs);
	if (rc == PAPI_OK)
		rc = env_num(TLY_SET_pcsamp_drain_ms, 3600000, &drain);
	if (rc == PAPI_OK)
		rc = env_num(TLY_SET_pcsamp_worker_sleep_ms, 3600000, &sleep);
	if (rc == PAPI_OK)
		rc = env_bool(TLY_SET_pcsamp_start, &start);
	cfg->period = (int)period;
	cfg->stalls = tly_setting_raw(TLY_SET_pcsamp_stalls);
	cfg->scratch_bytes = (size_t)scratch;
	cfg->hw_bytes = (size_t)hw;
	cfg->max_pcs = (size_t)maxpcs;
	cfg->drain_ms = (unsigned)drain;
	cfg->worker_sleep_ms = (unsigned)sleep;
	cfg->start_paused = !start;
	return rc;
}

/* TALLY_PCSAMP_SHARE: 1 "one" (default), 0 "all", -1 invalid. */
static int share_one(void)
{
	char w[8];

	if (tly_setting_word(TLY_SET_pcsamp_share, tly_setting_raw(TLY_SET_pcsamp_share), w, sizeof w) != 0)
		return -1;
	return !strcmp(w, "one");
}

/* Enable on one context unless another process samples its GPU; a
 * failure is remembered, never raised. */
static void auto_enable(CUcontext ctx)
{
	char key[64];
	long owner = 0;
	double t0;
	int rc;

	if (share_one() == 1 && tly_pcs_gpu_key(ctx, key, sizeof key) == 0 &&
	    (rc = tly_pcs_gpu_claim(key, &owner)) != 0) {
		pthread_mutex_lock(&autosamp.lock);
		snprintf(autosamp.status, sizeof autosamp.status, "GPU %s is sampled by %s %ld; this process does not "
			 "sample it (TALLY_PCSAMP_SHARE=all tries anyway)", key,
			 rc == -2 ? "another user's lock file, user id" : "process", owner);
		pthread_mutex_unlock(&autosamp.lock);
		return;
	}
	t0 = tly_cu_time_start();
	rc = tally_gpu_pcsampling_enable(ctx, NULL);
	tly_cu_time_end("PC sampling: enabled on a new context", t0);
	if (rc == PAPI_OK || rc == PAPI_EISRUN)
		return;
	pthread_mutex_lock(&autosamp.lock);
	snprintf(autosamp.status, sizeof autosamp.status, "PC sampling not enabled on context %p: %s", (void *)ctx,
		 tly_err_detail());
	pthread_mutex_unlock(&autosamp.lock);
}

void tly_cu_pcs_ctx_created(CUcontext ctx)
{
	int on;

	pthread_mutex_lock(&autosamp.lock);
	on = autosamp.on;
	pthread_mutex_unlock(&autosamp.lock);
	if (on)
		auto_enable(ctx);
}

int tally_gpu_pcsampling_auto(void)
{
	tally_gpu_pcsampling_config_t cfg = { .size = sizeof cfg };
	int on = 0, rc = env_bool(TLY_SET_pcsamp, &on);
	CUcontext cur = NULL;

	if (rc == PAPI_OK && on)
		rc = tally_gpu_pcsampling_config_from_env(&cfg);   /* reject bad settings now */
	if (rc == PAPI_OK && on && share_one() < 0)
		rc = env_word_error(TLY_SET_pcsamp_share);
	if (rc != PAPI_OK || !on)
		return rc;
	rc = tly_cu_api_ready();
	if (rc == PAPI_OK)
		rc = tly_cu_cb_init();
	if (rc != PAPI_OK)
		return rc;
	pthread_mutex_lock(&autosamp.lock);
	autosamp.on = 1;
	pthread_mutex_unlock(&autosamp.lock);
	if (tly_cu_libs()->drv->cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur)
		auto_enable(cur);
	return PAPI_OK;
}

const char *tally_gpu_pcsampling_auto_status(void)
{
	return autosamp.status;
}
