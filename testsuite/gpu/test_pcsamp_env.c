/*
 * test_pcsamp_env.c - TALLY_PCSAMP_* settings into a
 * tally_gpu_pcsampling_config_t (no GPU needed): values, defaults and the
 * errors for bad values.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "tharness.h"
#include "tally.h"

static const char *const vars[] = {
	"TALLY_PCSAMP_MODE", "TALLY_PCSAMP_PERIOD", "TALLY_PCSAMP_STALLS", "TALLY_PCSAMP_SCRATCH",
	"TALLY_PCSAMP_HWBUF", "TALLY_PCSAMP_START", "TALLY_PCSAMP_MAX_PCS", "TALLY_PCSAMP_DRAIN_MS",
	"TALLY_PCSAMP_WORKER_SLEEP_MS",
};

static const struct row {
	int line;
	const char *var, *val;
	int rc;
	int mode, period, paused;
	size_t scratch, hw, max_pcs;
	unsigned drain;
} rows[] = {
	{ __LINE__, NULL, NULL, PAPI_OK, TALLY_GPU_PCSAMP_CONTINUOUS, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_MODE", "serialized", PAPI_OK, TALLY_GPU_PCSAMP_SERIALIZED, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_MODE", "Continuous", PAPI_OK, TALLY_GPU_PCSAMP_CONTINUOUS, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_MODE", "sometimes", PAPI_EINVAL, 0, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_PERIOD", "5", PAPI_OK, TALLY_GPU_PCSAMP_CONTINUOUS, 5, 0, 0, 0, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_PERIOD", "31", PAPI_OK, TALLY_GPU_PCSAMP_CONTINUOUS, 31, 0, 0, 0, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_PERIOD", "4", PAPI_EINVAL, 0, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_PERIOD", "32", PAPI_EINVAL, 0, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_PERIOD", "-7", PAPI_EINVAL, 0, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_PERIOD", "12x", PAPI_EINVAL, 0, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_SCRATCH", "0x200000", PAPI_OK, TALLY_GPU_PCSAMP_CONTINUOUS, 0, 0, 2097152, 0, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_HWBUF", "1048576", PAPI_OK, TALLY_GPU_PCSAMP_CONTINUOUS, 0, 0, 0, 1048576, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_START", "no", PAPI_OK, TALLY_GPU_PCSAMP_CONTINUOUS, 0, 1, 0, 0, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_START", "on", PAPI_OK, TALLY_GPU_PCSAMP_CONTINUOUS, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_START", "maybe", PAPI_EINVAL, 0, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_MAX_PCS", "100", PAPI_OK, TALLY_GPU_PCSAMP_CONTINUOUS, 0, 0, 0, 0, 100, 0 },
	{ __LINE__, "TALLY_PCSAMP_MAX_PCS", "999999999", PAPI_EINVAL, 0, 0, 0, 0, 0, 0, 0 },
	{ __LINE__, "TALLY_PCSAMP_DRAIN_MS", "250", PAPI_OK, TALLY_GPU_PCSAMP_CONTINUOUS, 0, 0, 0, 0, 0, 250 },
};

int main(void)
{
	tally_gpu_pcsampling_config_t small = { .size = 8 };

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct row *r = &rows[i];
		tally_gpu_pcsampling_config_t c = { .size = sizeof c, .period = 99 };

		th_at(r->line);
		for (size_t v = 0; v < sizeof vars / sizeof vars[0]; v++)
			unsetenv(vars[v]);
		if (r->var)
			setenv(r->var, r->val, 1);
		TH_EQ(tally_gpu_pcsampling_config_from_env(&c), r->rc);
		if (r->rc != PAPI_OK)
			continue;
		TH_EQ(c.mode, r->mode);
		TH_EQ(c.period, r->period);
		TH_EQ(c.start_paused, r->paused);
		TH_EQ(c.scratch_bytes, r->scratch);
		TH_EQ(c.hw_bytes, r->hw);
		TH_EQ(c.max_pcs, r->max_pcs);
		TH_EQ(c.drain_ms, r->drain);
	}
	th_at(0);
	setenv("TALLY_PCSAMP_STALLS", "wait,long_scoreboard", 1);
	{
		tally_gpu_pcsampling_config_t c = { .size = sizeof c };

		TH_EQ(tally_gpu_pcsampling_config_from_env(&c), PAPI_OK);
		TH_CHECK(c.stalls && !strcmp(c.stalls, "wait,long_scoreboard"));
	}
	TH_EQ(tally_gpu_pcsampling_config_from_env(&small), PAPI_EINVAL);
	TH_EQ(tally_gpu_pcsampling_config_from_env(NULL), PAPI_EINVAL);
	/* Off: automatic sampling does nothing, even without a GPU. */
	setenv("TALLY_PCSAMP", "0", 1);
	TH_EQ(tally_gpu_pcsampling_auto(), PAPI_OK);
	setenv("TALLY_PCSAMP", "bogus", 1);
	TH_EQ(tally_gpu_pcsampling_auto(), PAPI_EINVAL);
	return th_done();
}
