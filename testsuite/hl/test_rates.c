/*
 * test_rates.c - rate calls through the public API: each call on an event
 * this machine lacks returns PAPI_ENOEVNT and leaves nothing running
 * (PAPI_rate_stop says PAPI_ENOTRUN, PAPI_start_counters works after it);
 * argument and mixing errors.  On a machine that has the event the same
 * row expects PAPI_OK (and PAPI_rate_stop then succeeds).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* mmap/madvise flags, mkdtemp, setenv, gethostname */
#endif
#include "papi.h"
#include "tharness.h"
#include "hl_test_util.h"

static int pf; /* perf::PAGE-FAULTS */

enum call { FLIPS, FLOPS, FLIPS_RATE, FLOPS_RATE, IPC, EPC };

static int do_call(enum call c, int event)
{
	float rt, pt, rate;
	long long cnt, ref, core;

	switch (c) {
	case FLIPS: return PAPI_flips(&rt, &pt, &cnt, &rate);
	case FLOPS: return PAPI_flops(&rt, &pt, &cnt, &rate);
	case FLIPS_RATE: return PAPI_flips_rate(event, &rt, &pt, &cnt, &rate);
	case FLOPS_RATE: return PAPI_flops_rate(event, &rt, &pt, &cnt, &rate);
	case IPC: return PAPI_ipc(&rt, &pt, &cnt, &rate);
	default: return PAPI_epc(event, &rt, &pt, &ref, &core, &cnt, &rate);
	}
}

/* PAPI_OK when all of the (up to two) events exist here, else ENOEVNT. */
static int expect_for(int e1, int e2)
{
	if (PAPI_query_event(e1) != PAPI_OK || (e2 && PAPI_query_event(e2) != PAPI_OK))
		return PAPI_ENOEVNT;
	return PAPI_OK;
}

/* After any rate call that failed, nothing may be left counting. */
static void nothing_running(void)
{
	long long v;

	TH_EQ(PAPI_rate_stop(), PAPI_ENOTRUN);
	TH_EQ(PAPI_start_counters(&pf, 1), PAPI_OK);
	hlt_touch_pages(500);
	TH_EQ(PAPI_stop_counters(&v, 1), PAPI_OK);
	TH_NEAR(v, 500, 0.02);
}

static void missing_event_rows(void)
{
	static const struct row {
		int line;
		enum call call;
		int event, need1, need2;
	} rows[] = {
		{ __LINE__, FLIPS, 0, PAPI_FP_INS, 0 },
		{ __LINE__, FLOPS, 0, PAPI_FP_OPS, 0 },
		{ __LINE__, FLIPS_RATE, PAPI_FP_INS, PAPI_FP_INS, 0 },
		{ __LINE__, FLIPS_RATE, PAPI_VEC_SP, PAPI_VEC_SP, 0 },
		{ __LINE__, FLIPS_RATE, PAPI_VEC_DP, PAPI_VEC_DP, 0 },
		{ __LINE__, FLOPS_RATE, PAPI_FP_OPS, PAPI_FP_OPS, 0 },
		{ __LINE__, FLOPS_RATE, PAPI_SP_OPS, PAPI_SP_OPS, 0 },
		{ __LINE__, FLOPS_RATE, PAPI_DP_OPS, PAPI_DP_OPS, 0 },
		{ __LINE__, IPC, 0, PAPI_TOT_INS, PAPI_TOT_CYC },
		{ __LINE__, EPC, 0, PAPI_TOT_INS, PAPI_TOT_CYC },
		{ __LINE__, EPC, -1, 0, PAPI_TOT_CYC }, /* -1: perf::PAGE-FAULTS */
	};

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct row *r = &rows[i];
		int event = r->event == -1 ? pf : r->event;
		int expect = expect_for(r->need1 ? r->need1 : pf, r->need2);

		th_at(r->line);
		TH_EQ(do_call(r->call, event), expect);
		if (expect == PAPI_OK)
			TH_EQ(PAPI_rate_stop(), PAPI_OK);
		nothing_running();
	}
	th_at(0);
}

static void argument_rows(void)
{
	static const struct row {
		int line;
		enum call call;
		int event;
	} rows[] = {
		{ __LINE__, FLIPS_RATE, PAPI_FP_OPS },
		{ __LINE__, FLIPS_RATE, PAPI_TOT_INS },
		{ __LINE__, FLIPS_RATE, 0 },
		{ __LINE__, FLOPS_RATE, PAPI_FP_INS },
		{ __LINE__, FLOPS_RATE, PAPI_VEC_DP },
		{ __LINE__, FLOPS_RATE, 0 },
	};
	float f;
	long long ll;

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(do_call(rows[i].call, rows[i].event), PAPI_EINVAL);
	}
	th_at(0);
	TH_EQ(PAPI_flips(NULL, &f, &ll, &f), PAPI_EINVAL);
	TH_EQ(PAPI_flops(&f, &f, NULL, &f), PAPI_EINVAL);
	TH_EQ(PAPI_flips_rate(PAPI_FP_INS, &f, &f, &ll, NULL), PAPI_EINVAL);
	TH_EQ(PAPI_ipc(&f, NULL, &ll, &f), PAPI_EINVAL);
	TH_EQ(PAPI_epc(0, &f, &f, &ll, NULL, &ll, &f), PAPI_EINVAL);
	nothing_running();
}

/* While PAPI_start_counters counts, a rate call is refused with EINVAL
 * (counters started by something else) and the counters keep counting. */
static void counters_block_rates(void)
{
	long long v;

	TH_EQ(PAPI_start_counters(&pf, 1), PAPI_OK);
	TH_EQ(do_call(FLIPS_RATE, PAPI_FP_INS), PAPI_EINVAL);
	TH_EQ(do_call(EPC, pf), PAPI_EINVAL);
	TH_EQ(do_call(IPC, 0), PAPI_EINVAL);
	TH_EQ(PAPI_rate_stop(), PAPI_ENOTRUN);
	hlt_touch_pages(700);
	TH_EQ(PAPI_stop_counters(&v, 1), PAPI_OK);
	TH_NEAR(v, 700, 0.02);
}

int main(void)
{
	/* rate calls initialise the library themselves */
	TH_EQ(PAPI_rate_stop(), PAPI_ENOTRUN);
	TH_EQ(do_call(FLIPS_RATE, PAPI_FP_INS), expect_for(PAPI_FP_INS, 0) == PAPI_OK ? PAPI_OK : PAPI_ENOEVNT);
	TH_CHECK(PAPI_is_initialized() != PAPI_NOT_INITED);
	(void)PAPI_rate_stop();
	TH_EQ(PAPI_event_name_to_code("perf::PAGE-FAULTS", &pf), PAPI_OK);
	missing_event_rows();
	argument_rows();
	counters_block_rates();
	return th_done();
}
