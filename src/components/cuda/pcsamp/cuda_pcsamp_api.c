/*
 * cuda_pcsamp_api.c - tally_gpu_pcsampling_*: PC sampling sessions, one
 * per CUDA context (see tally_gpu.h).
 */
#include "cuda_pcsamp_internal.h"

#include <stdio.h>
#include <stdlib.h>

#include "papi.h"
#include "services/err_detail.h"

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
	if ((rc = tly_pcs_check_cfg(cfg)) != PAPI_OK)
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
	tly_pcs_follow();
	tly_pcs_lock();
	tly_pcs_reg.want_cubins = 1;
	tly_pcs_unlock();
	/* Subscriber for cubins and launch names; without it (another tool
	 * holds CUPTI's subscription) samples have no source lines. */
	tly_cu_cb_init();
	tly_pcs_lock();
	old = tly_pcs_find_locked(ctx);
	if (old && old->enabled) {
		rc = tly_err_set(PAPI_EISRUN, "PC sampling already enabled on this context");
	} else {
		s->cfg.stalls = cfg->stalls;  /* read during open only */
		rc = tly_pcs_open_locked(s);
		s->cfg.stalls = NULL;
	}
	if (rc == PAPI_OK) {
		for (struct tly_pcs_sess **pp = &tly_pcs_reg.head; *pp; pp = &(*pp)->next)
			if (*pp == old) {
				*pp = old->next;
				tly_pcs_sess_free(old);
				break;
			}
		s->next = tly_pcs_reg.head;
		tly_pcs_reg.head = s;
		tly_pcs_reg.serialized |= s->cfg.mode == TALLY_GPU_PCSAMP_SERIALIZED;
		tly_pcs_hooks_locked(&s->cfg);
	} else if (s->enabled) {
		CUpti_PCSamplingDisableParams p = { .size = CUpti_PCSamplingDisableParamsSize, .ctx = ctx };

		tly_pcs_fns()->cuptiPCSamplingDisable(&p);
	}
	tly_pcs_unlock();
	if (rc != PAPI_OK)
		tly_pcs_sess_free(s);
	return rc;
}

int tally_gpu_pcsampling_start(void *ctx)
{
	int rc;
	struct tly_pcs_sess *s = tly_pcs_lock_sess(ctx, &rc);

	if (!s)
		return rc;
	if (!s->enabled)
		rc = tly_err_set(PAPI_ENOTRUN, "PC sampling is disabled on this context");
	else if (!s->running) {
		rc = tly_pcs_start_ctx(s->ctx);
		s->running = rc == PAPI_OK;
	}
	tly_pcs_unlock();
	return rc;
}

int tally_gpu_pcsampling_stop(void *ctx)
{
	int rc;
	struct tly_pcs_sess *s = tly_pcs_lock_sess(ctx, &rc);

	if (!s)
		return rc;
	rc = s->enabled ? tly_pcs_stop_locked(s) : tly_err_set(PAPI_ENOTRUN, "PC sampling is disabled on this context");
	tly_pcs_unlock();
	return rc;
}

int tally_gpu_pcsampling_flush(void *ctx)
{
	int rc;
	struct tly_pcs_sess *s = tly_pcs_lock_sess(ctx, &rc);

	if (!s)
		return rc;
	rc = s->enabled ? tly_pcs_data_drain(s->data, s->ctx) : PAPI_OK;
	tly_pcs_unlock();
	return rc;
}

int tally_gpu_pcsampling_disable(void *ctx)
{
	int rc;
	struct tly_pcs_sess *s = tly_pcs_lock_sess(ctx, &rc);

	if (!s)
		return rc;
	rc = tly_pcs_disable_locked(s);
	tly_pcs_unlock();
	return rc;
}

int tally_gpu_pcsampling_reset(void *ctx)
{
	int rc;
	struct tly_pcs_sess *s = tly_pcs_lock_sess(ctx, &rc);

	if (!s)
		return rc;
	rc = tly_pcs_disable_locked(s);
	for (struct tly_pcs_sess **pp = &tly_pcs_reg.head; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	tly_pcs_unlock();
	tly_pcs_sess_free(s);
	return rc;
}

int tally_gpu_pcsampling_num_stall_reasons(void *ctx, int *n)
{
	int rc;
	struct tly_pcs_sess *s = tly_pcs_lock_sess(ctx, &rc);

	if (!s)
		return rc;
	*n = (int)s->nsel;
	tly_pcs_unlock();
	return PAPI_OK;
}

int tally_gpu_pcsampling_stall_reason(void *ctx, int i, char *name, size_t len, uint32_t *cupti_index)
{
	int rc;
	struct tly_pcs_sess *s = tly_pcs_lock_sess(ctx, &rc);

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
	tly_pcs_unlock();
	return rc;
}

int tally_gpu_pcsampling_get_stats(void *ctx, tally_gpu_pcsampling_stats_t *st)
{
	int rc;
	struct tly_pcs_sess *s;

	if (!st || st->size < sizeof *st)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_pcsampling_get_stats: st->size not set");
	s = tly_pcs_lock_sess(ctx, &rc);
	if (!s)
		return rc;
	tly_pcs_data_stats(s->data, st);
	st->enabled = s->enabled;
	st->running = s->running;
	st->mode = s->cfg.mode;
	st->period = s->period;
	st->device = s->device;
	tly_pcs_unlock();
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
	s = tly_pcs_lock_sess(ctx, &rc);
	if (!s)
		return rc;
	rc = tly_pcs_data_walk(s->data, fn, userdata, launch_name, NULL);
	tly_pcs_unlock();
	return rc;
}

int tally_gpu_pcsampling_contexts(void **ctxs, int *n)
{
	int k = 0;

	if (!n)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_pcsampling_contexts: n is NULL");
	tly_pcs_lock();
	for (struct tly_pcs_sess *s = tly_pcs_reg.head; s; s = s->next, k++)
		if (ctxs && k < *n)
			ctxs[k] = s->ctx;
	tly_pcs_unlock();
	*n = k;
	return PAPI_OK;
}
