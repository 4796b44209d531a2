/*
 * papi_rates.c - rate calls: PAPI 3.5 PAPI_flips/PAPI_flops, PAPI 7
 * PAPI_flips_rate/PAPI_flops_rate/PAPI_ipc/PAPI_epc and PAPI_rate_stop.
 *
 * Semantics (one measurement per thread, built on the low-level API):
 * - The first call initialises the library if needed, creates and starts an
 *   event set, and returns 0 for every output.
 * - Later calls read the counters.  PAPI 7 calls (PAPI_flips_rate,
 *   PAPI_flops_rate, PAPI_ipc, PAPI_epc) return, as PAPI 7 documents them,
 *   real time, process (thread CPU) time and counts since the latest call,
 *   and the rate over that interval.  The PAPI 3.5 calls (PAPI_flips,
 *   PAPI_flops) return, as PAPI 3.5 documents them, totals since the first
 *   call and the rate since the latest call.  The per-kind `cumulative`
 *   flag in kinds[] below holds this choice.  PAPI_ipc exists once and is
 *   the PAPI 7 form.
 * - Rates: Mflip/s and Mflop/s are events per microsecond of process time;
 *   IPC and EPC are events per core cycle.  A zero denominator gives 0.
 * - Mixing: a rate call while another kind of rate call (or the same kind
 *   with another event) is counting returns PAPI_EINVAL, PAPI 7's
 *   documented code for "counters already started by something other than
 *   this call"; likewise while PAPI_start_counters counts in the thread.
 *   PAPI_rate_stop ends the measurement; afterwards any rate call or
 *   PAPI_start_counters may start.  PAPI_start_counters while a rate call
 *   counts returns PAPI_EISRUN.
 * - PAPI_rate_stop with nothing counting returns PAPI_ENOTRUN (PAPI 7
 *   documents PAPI_ENOEVNT; Tally uses the code that says what happened).
 * - A failing first call (event missing: PAPI_ENOEVNT) leaves nothing
 *   behind: no event set, the thread's slot free.
 */
#include "papi.h"

#include <string.h>

#include "api/hl_common.h"
#include "api/hl_rate.h"
#include "core/errors.h"

#define RATE_TERMS 3 /* counted event, core cycles, reference cycles */

enum rate_kind {
	RATE_NONE = 0,
	RATE_FLIPS35,
	RATE_FLOPS35,
	RATE_FLIPS,
	RATE_FLOPS,
	RATE_IPC,
	RATE_EPC
};

static const struct rate_kind_info {
	const char *fn;
	int cumulative; /* 1: times and counts since the first call */
} kinds[] = {
	[RATE_NONE] = { "none", 0 },
	[RATE_FLIPS35] = { "PAPI_flips", 1 },
	[RATE_FLOPS35] = { "PAPI_flops", 1 },
	[RATE_FLIPS] = { "PAPI_flips_rate", 0 },
	[RATE_FLOPS] = { "PAPI_flops_rate", 0 },
	[RATE_IPC] = { "PAPI_ipc", 0 },
	[RATE_EPC] = { "PAPI_epc", 0 },
};

/* What one call asks for. */
struct rate_req {
	enum rate_kind kind;
	int codes[RATE_TERMS];
	int nterms;
	int optional; /* bit i set: term i may be missing (reported as 0) */
};

/* What one call returns: interval or cumulative per the kind. */
struct rate_out {
	float rtime, ptime;
	long long count[RATE_TERMS];   /* as reported */
	long long delta[RATE_TERMS];   /* since the latest call */
	double dvirt_usec;             /* process time since the latest call */
};

static _Thread_local struct {
	struct rate_req req;
	int evset;
	int pos[RATE_TERMS];           /* index in the read values, -1: missing */
	long long start_real, start_virt, last_real, last_virt;
	long long last[RATE_TERMS];
} thread_rate = { .evset = PAPI_NULL };

static void rate_reset_state(void)
{
	tly_hl_drop_eventset(&thread_rate.evset);
	memset(&thread_rate, 0, sizeof thread_rate);
	thread_rate.evset = PAPI_NULL;
	tly_hl_set_owner(TLY_HL_NONE);
}

/* Add term i (or reuse an identical earlier term). */
static int add_term(const struct rate_req *req, int i, int *nadded)
{
	int rc;

	for (int j = 0; j < i; j++) {
		if (req->codes[j] == req->codes[i] && thread_rate.pos[j] >= 0) {
			thread_rate.pos[i] = thread_rate.pos[j];
			return PAPI_OK;
		}
	}
	rc = PAPI_add_event(thread_rate.evset, req->codes[i]);
	if (rc == PAPI_OK) {
		thread_rate.pos[i] = (*nadded)++;
		return PAPI_OK;
	}
	thread_rate.pos[i] = -1;
	return (req->optional & (1 << i)) ? PAPI_OK : rc;
}

static int rate_begin(const struct rate_req *req, struct rate_out *out)
{
	int nadded = 0;
	int rc = PAPI_create_eventset(&thread_rate.evset);

	for (int i = 0; i < req->nterms && rc == PAPI_OK; i++)
		rc = add_term(req, i, &nadded);
	if (rc == PAPI_OK)
		rc = PAPI_start(thread_rate.evset);
	if (rc != PAPI_OK) {
		rate_reset_state();
		return rc;
	}
	thread_rate.req = *req;
	thread_rate.start_real = thread_rate.last_real = PAPI_get_real_nsec();
	thread_rate.start_virt = thread_rate.last_virt = PAPI_get_virt_nsec();
	tly_hl_set_owner(TLY_HL_RATE);
	memset(out, 0, sizeof *out);
	return PAPI_OK;
}

static int rate_sample(struct rate_out *out)
{
	long long vals[RATE_TERMS] = { 0 };
	long long now_real, now_virt;
	int cumulative = kinds[thread_rate.req.kind].cumulative;
	int rc = PAPI_read(thread_rate.evset, vals);

	if (rc != PAPI_OK)
		return rc;
	now_real = PAPI_get_real_nsec();
	now_virt = PAPI_get_virt_nsec();
	for (int i = 0; i < thread_rate.req.nterms; i++) {
		long long cur = thread_rate.pos[i] >= 0 ? vals[thread_rate.pos[i]] : 0;

		out->delta[i] = cur - thread_rate.last[i];
		out->count[i] = cumulative ? cur : out->delta[i];
		thread_rate.last[i] = cur;
	}
	out->rtime = (float)((now_real - (cumulative ? thread_rate.start_real : thread_rate.last_real)) / 1e9);
	out->ptime = (float)((now_virt - (cumulative ? thread_rate.start_virt : thread_rate.last_virt)) / 1e9);
	out->dvirt_usec = (double)(now_virt - thread_rate.last_virt) / 1e3;
	thread_rate.last_real = now_real;
	thread_rate.last_virt = now_virt;
	return PAPI_OK;
}

static int same_request(const struct rate_req *req)
{
	if (req->kind != thread_rate.req.kind || req->nterms != thread_rate.req.nterms)
		return 0;
	return memcmp(req->codes, thread_rate.req.codes, sizeof req->codes) == 0;
}

static int rate_call(const struct rate_req *req, struct rate_out *out)
{
	const char *fn = kinds[req->kind].fn;
	int rc = tly_hl_init();

	if (rc != PAPI_OK)
		return rc;
	if (tly_hl_owner() == TLY_HL_COUNTERS)
		return tly_err_set(PAPI_EINVAL,
			"%s: PAPI_start_counters is counting in this thread; call PAPI_stop_counters first", fn);
	if (tly_hl_owner() == TLY_HL_NONE)
		return rate_begin(req, out);
	if (!same_request(req))
		return tly_err_set(PAPI_EINVAL,
			"%s: %s is already counting in this thread (with its own events); call PAPI_rate_stop first",
			fn, kinds[thread_rate.req.kind].fn);
	return rate_sample(out);
}

static float ratio(long long num, double den)
{
	return den > 0 ? (float)((double)num / den) : 0.0f;
}

/* Mflip/s-style calls: one FP event, rate per microsecond of process time. */
static int fp_rate(enum rate_kind kind, int event, float *rtime, float *ptime,
		   long long *count, float *rate)
{
	struct rate_req req = { .kind = kind, .codes = { event }, .nterms = 1 };
	struct rate_out out;
	int rc;

	if (!rtime || !ptime || !count || !rate)
		return tly_err_set(PAPI_EINVAL, "%s: an output pointer is NULL", kinds[kind].fn);
	rc = rate_call(&req, &out);
	if (rc != PAPI_OK)
		return rc;
	*rtime = out.rtime;
	*ptime = out.ptime;
	*count = out.count[0];
	*rate = ratio(out.delta[0], out.dvirt_usec);
	return PAPI_OK;
}

int PAPI_flips(float *rtime, float *ptime, long long *flpins, float *mflips)
{
	return fp_rate(RATE_FLIPS35, PAPI_FP_INS, rtime, ptime, flpins, mflips);
}

int PAPI_flops(float *rtime, float *ptime, long long *flpops, float *mflops)
{
	return fp_rate(RATE_FLOPS35, PAPI_FP_OPS, rtime, ptime, flpops, mflops);
}

int PAPI_flips_rate(int event, float *rtime, float *ptime, long long *flpins, float *mflips)
{
	if (event != PAPI_FP_INS && event != PAPI_VEC_SP && event != PAPI_VEC_DP)
		return tly_err_set(PAPI_EINVAL,
			"PAPI_flips_rate: event %#x is not PAPI_FP_INS, PAPI_VEC_SP or PAPI_VEC_DP",
			(unsigned)event);
	return fp_rate(RATE_FLIPS, event, rtime, ptime, flpins, mflips);
}

int PAPI_flops_rate(int event, float *rtime, float *ptime, long long *flpops, float *mflops)
{
	if (event != PAPI_FP_OPS && event != PAPI_SP_OPS && event != PAPI_DP_OPS)
		return tly_err_set(PAPI_EINVAL,
			"PAPI_flops_rate: event %#x is not PAPI_FP_OPS, PAPI_SP_OPS or PAPI_DP_OPS",
			(unsigned)event);
	return fp_rate(RATE_FLOPS, event, rtime, ptime, flpops, mflops);
}

int PAPI_ipc(float *rtime, float *ptime, long long *ins, float *ipc)
{
	struct rate_req req = { .kind = RATE_IPC, .codes = { PAPI_TOT_INS, PAPI_TOT_CYC },
				.nterms = 2 };
	struct rate_out out;
	int rc;

	if (!rtime || !ptime || !ins || !ipc)
		return tly_err_set(PAPI_EINVAL, "PAPI_ipc: an output pointer is NULL");
	rc = rate_call(&req, &out);
	if (rc != PAPI_OK)
		return rc;
	*rtime = out.rtime;
	*ptime = out.ptime;
	*ins = out.count[0];
	*ipc = ratio(out.delta[0], (double)out.delta[1]);
	return PAPI_OK;
}

int tly_hl_epc_codes(int event, int core, int ref, float *rtime, float *ptime,
		     long long *refc, long long *corec, long long *evt, float *epc)
{
	struct rate_req req = { .kind = RATE_EPC, .codes = { event, core, ref }, .nterms = 3,
				.optional = 1 << 2 };
	struct rate_out out;
	int rc;

	if (!rtime || !ptime || !refc || !corec || !evt || !epc)
		return tly_err_set(PAPI_EINVAL, "PAPI_epc: an output pointer is NULL");
	rc = rate_call(&req, &out);
	if (rc != PAPI_OK)
		return rc;
	*rtime = out.rtime;
	*ptime = out.ptime;
	*evt = out.count[0];
	*corec = out.count[1];
	*refc = out.count[2];
	*epc = ratio(out.delta[0], (double)out.delta[1]);
	return PAPI_OK;
}

int PAPI_epc(int event, float *rtime, float *ptime, long long *ref, long long *core,
	     long long *evt, float *epc)
{
	return tly_hl_epc_codes(event ? event : PAPI_TOT_INS, PAPI_TOT_CYC, PAPI_REF_CYC,
				rtime, ptime, ref, core, evt, epc);
}

int PAPI_rate_stop(void)
{
	int rc;

	if (tly_hl_owner() != TLY_HL_RATE)
		return tly_err_set(PAPI_ENOTRUN, "PAPI_rate_stop: no rate call is counting in this thread");
	rc = PAPI_stop(thread_rate.evset, NULL);
	rate_reset_state();
	return rc;
}
