/*
 * cuda_pcsamp_env.c - TALLY_PCSAMP_* settings (src/settings/settings.def,
 * read with its one parser) into a tally_gpu_pcsampling_config_t (automatic
 * sampling, TALLY_PCSAMP=1, is cuda_pcsamp_auto.c).  Usable without the
 * runtime.
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

int tly_pcs_env_bool(int id, int *out)
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
int tly_pcs_env_word_error(int id)
{
	char why[512];

	tly_setting_check(id, tly_setting_raw(id), why, sizeof why);
	return tly_err_set(PAPI_EINVAL, "%s", why);
}

static int env_mode(int *mode)
{
	char w[32];

	if (tly_setting_word(TLY_SET_pcsamp_mode, tly_setting_raw(TLY_SET_pcsamp_mode), w, sizeof w) != 0)
		return tly_pcs_env_word_error(TLY_SET_pcsamp_mode);
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
		rc = tly_pcs_env_bool(TLY_SET_pcsamp_start, &start);
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
