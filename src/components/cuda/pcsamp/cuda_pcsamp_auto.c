/*
 * cuda_pcsamp_auto.c - automatic sampling of every context (TALLY_PCSAMP=1):
 * the contexts there are now and, through the CUPTI subscriber's
 * follower, each one created later.  Above the entry points
 * (cuda_pcsamp_api.c) and the settings (cuda_pcsamp_env.c).
 */
#include "cuda_pcsamp_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "papi.h"
#include "services/err_detail.h"
#include "tally_shared.h"

static struct {
	pthread_mutex_t lock;
	int on;
	char status[512];
} autosamp = { .lock = PTHREAD_MUTEX_INITIALIZER };

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

static const struct tly_cu_cb_follower auto_follower = { .ctx_created = tly_cu_pcs_ctx_created };

int tally_gpu_pcsampling_auto(void)
{
	tally_gpu_pcsampling_config_t cfg = { .size = sizeof cfg };
	int on = 0, rc = tly_pcs_env_bool(TLY_SET_pcsamp, &on);
	CUcontext cur = NULL;

	if (rc == PAPI_OK && on)
		rc = tally_gpu_pcsampling_config_from_env(&cfg);   /* reject bad settings now */
	if (rc == PAPI_OK && on && share_one() < 0)
		rc = tly_pcs_env_word_error(TLY_SET_pcsamp_share);
	if (rc != PAPI_OK || !on)
		return rc;
	rc = tly_cu_api_ready();
	if (rc == PAPI_OK) {
		tly_cu_cb_follow(&auto_follower);
		rc = tly_cu_cb_init();
	}
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
