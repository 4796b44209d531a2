/*
 * cuda_pcsamp_setup.c - enabling PC sampling on a context: the stall
 * reasons of its device and those selected, the configuration CUPTI is
 * given (start/stop control always on, so that Tally can end a range and
 * drain its records at any point) and the period it uses; a session that
 * is not "paused" is started right after configuration.
 */
#include "cuda_pcsamp_internal.h"

#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "services/err_detail.h"

/* The stall reasons of the context's device, as CUPTI names them. */
static int get_reasons(struct tly_pcs_sess *s)
{
	CUpti_PCSamplingGetNumStallReasonsParams np = { .size = CUpti_PCSamplingGetNumStallReasonsParamsSize };
	CUpti_PCSamplingGetStallReasonsParams rp = { .size = CUpti_PCSamplingGetStallReasonsParamsSize };
	char **ptrs;
	int rc;

	np.ctx = s->ctx;
	np.numStallReasons = &s->nall;
	rc = tly_cu_pti_err(tly_pcs_fns()->cuptiPCSamplingGetNumStallReasons(&np), "cuptiPCSamplingGetNumStallReasons");
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
	rc = tly_cu_pti_err(tly_pcs_fns()->cuptiPCSamplingGetStallReasons(&rp), "cuptiPCSamplingGetStallReasons");
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
	rc = tly_cu_pti_err(tly_pcs_fns()->cuptiPCSamplingSetConfigurationAttribute(&p),
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
	if (tly_pcs_fns()->cuptiPCSamplingGetConfigurationAttribute(&p) == CUPTI_SUCCESS)
		s->period = (int)a.attributeData.samplingPeriodData.samplingPeriod;
}

int tly_pcs_open_locked(struct tly_pcs_sess *s)
{
	CUpti_PCSamplingEnableParams ep = { .size = CUpti_PCSamplingEnableParamsSize };
	int rc;

	ep.ctx = s->ctx;
	rc = tly_cu_pti_err(tly_pcs_fns()->cuptiPCSamplingEnable(&ep), "cuptiPCSamplingEnable");
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
		rc = tly_pcs_start_ctx(s->ctx);
		s->running = rc == PAPI_OK;
	}
	return rc;
}

int tly_pcs_check_cfg(const tally_gpu_pcsampling_config_t *c)
{
	if (c->size < sizeof *c)
		return tly_err_set(PAPI_EINVAL, "PC sampling: config size %zu, expected %zu", c->size, sizeof *c);
	if (c->period && (c->period < 5 || c->period > 31))
		return tly_err_set(PAPI_EINVAL, "PC sampling: period 2^%d: must be 2^5..2^31 cycles", c->period);
	if (c->mode && c->mode != TALLY_GPU_PCSAMP_CONTINUOUS && c->mode != TALLY_GPU_PCSAMP_SERIALIZED)
		return tly_err_set(PAPI_EINVAL, "PC sampling: mode %d unknown", c->mode);
	return PAPI_OK;
}
