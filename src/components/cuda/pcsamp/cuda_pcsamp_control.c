/*
 * cuda_pcsamp_control.c - starting, stopping (and draining) and disabling
 * the PC sampling of a session, its lock held.
 */
#include "cuda_pcsamp_internal.h"

#include "papi.h"

int tly_pcs_start_ctx(CUcontext ctx)
{
	CUpti_PCSamplingStartParams p = { .size = CUpti_PCSamplingStartParamsSize };

	p.ctx = ctx;
	return tly_cu_pti_err(tly_pcs_fns()->cuptiPCSamplingStart(&p), "cuptiPCSamplingStart");
}

static int stop_ctx(CUcontext ctx)
{
	CUpti_PCSamplingStopParams p = { .size = CUpti_PCSamplingStopParamsSize };

	p.ctx = ctx;
	return tly_cu_pti_err(tly_pcs_fns()->cuptiPCSamplingStop(&p), "cuptiPCSamplingStop");
}

/* Stop the range and drain it: the stop's records first, then GetData. */
int tly_pcs_stop_locked(struct tly_pcs_sess *s)
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

int tly_pcs_disable_locked(struct tly_pcs_sess *s)
{
	CUpti_PCSamplingDisableParams p = { .size = CUpti_PCSamplingDisableParamsSize };
	int rc, rc2;

	if (!s->enabled)
		return PAPI_OK;
	rc = tly_pcs_stop_locked(s);
	p.ctx = s->ctx;
	rc2 = tly_cu_pti_err(tly_pcs_fns()->cuptiPCSamplingDisable(&p), "cuptiPCSamplingDisable");
	/* Disable copies what was left into the configured buffer. */
	tly_pcs_data_take_cfgbuf(s->data);
	s->enabled = 0;
	tly_pcs_reg.serialized = 0;
	for (struct tly_pcs_sess *o = tly_pcs_reg.head; o; o = o->next)
		tly_pcs_reg.serialized |= o->enabled && o->cfg.mode == TALLY_GPU_PCSAMP_SERIALIZED;
	return rc != PAPI_OK ? rc : rc2;
}
