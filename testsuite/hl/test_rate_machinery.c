/*
 * test_rate_machinery.c - the rate machinery with real counts.  This
 * machine may lack cycle counters, so PAPI_epc's engine is driven through
 * tly_hl_epc_codes() with software events: perf::PAGE-FAULTS as the
 * event, perf::TASK-CLOCK (ns) as "core cycles", perf::CONTEXT-SWITCHES or
 * a missing event as the optional "reference cycles".  Checked against
 * touched pages, CLOCK_THREAD_CPUTIME_ID and CLOCK_MONOTONIC.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* mmap/madvise flags, mkdtemp, setenv, gethostname */
#endif
#include "papi.h"
#include "api/hl_rate.h"
#include "tharness.h"
#include "th_sys.h"
#include "hl_test_util.h"

#define NPAGES 3000
#define SPIN_NS 80000000LL

static int pf, tc, cs;

struct sample {
	float rt, pt, epc;
	long long ref, core, evt;
};

static int epc(int ref, struct sample *s)
{
	return tly_hl_epc_codes(pf, tc, ref, &s->rt, &s->pt, &s->ref, &s->core, &s->evt, &s->epc);
}

/* One interval: outputs are "since the latest call" (PAPI 7). */
static void interval(int ref, long npages)
{
	struct sample s;
	long long c0, r0, c1, r1, f0, f1;

	f0 = th_thread_faults();
	th_clock_begin();
	c0 = th_thread_cpu_ns();
	r0 = (long long)th_now_ns();

	hlt_touch_pages(npages);
	th_spin_cpu_ns(SPIN_NS);
	c1 = th_thread_cpu_ns();
	r1 = (long long)th_now_ns();
	f1 = th_thread_faults();
	TH_EQ(epc(ref, &s), PAPI_OK);
	/* the pages touched at least; the kernel's own count of the window
	 * (ASan faults shadow pages of its own in it) within 2% */
	TH_CHECK(s.evt >= npages);
	TH_NEAR(s.evt, f1 - f0, 0.02);
	TH_NEAR_CLOCK(s.core, c1 - c0);
	TH_NEAR(s.pt, (c1 - c0) / 1e9, 0.05);
	TH_NEAR(s.rt, (r1 - r0) / 1e9, 0.05);
	TH_NEAR(s.epc, (double)s.evt / (double)s.core, 1e-4);
	if (ref == PAPI_REF_CYC)
		TH_EQ(s.ref, 0); /* missing optional reference cycles */
	else
		TH_CHECK(s.ref >= 0 && s.ref < 1000);
}

static void run(int ref)
{
	struct sample s = { 1, 1, 1, 1, 1, 1 };

	TH_EQ(epc(ref, &s), PAPI_OK); /* first call: starts, all zeros */
	TH_EQ(s.evt, 0);
	TH_EQ(s.core, 0);
	TH_EQ(s.ref, 0);
	TH_CHECK(s.rt == 0 && s.pt == 0 && s.epc == 0);
	interval(ref, NPAGES);
	interval(ref, NPAGES / 3); /* not NPAGES + NPAGES/3: since latest */
	TH_EQ(PAPI_rate_stop(), PAPI_OK);
	TH_EQ(PAPI_rate_stop(), PAPI_ENOTRUN);
}

/* While one rate measurement runs, other kinds are refused (EINVAL) and so
 * is PAPI_start_counters (EISRUN); the measurement goes on unharmed. */
static void mixing(void)
{
	struct sample s;
	float f;
	long long ll;
	int ev[1] = { pf };

	TH_EQ(epc(cs, &s), PAPI_OK);
	TH_EQ(PAPI_flips_rate(PAPI_FP_INS, &f, &f, &ll, &f), PAPI_EINVAL);
	TH_EQ(PAPI_ipc(&f, &f, &ll, &f), PAPI_EINVAL);
	TH_EQ(PAPI_epc(0, &f, &f, &ll, &ll, &ll, &f), PAPI_EINVAL);
	TH_EQ(tly_hl_epc_codes(tc, pf, cs, &f, &f, &ll, &ll, &ll, &f), PAPI_EINVAL);
	TH_EQ(PAPI_start_counters(ev, 1), PAPI_EISRUN);
	interval(cs, NPAGES / 2);
	TH_EQ(PAPI_rate_stop(), PAPI_OK);
}

int main(void)
{
	TH_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	TH_EQ(PAPI_event_name_to_code("perf::PAGE-FAULTS", &pf), PAPI_OK);
	TH_EQ(PAPI_event_name_to_code("perf::TASK-CLOCK", &tc), PAPI_OK);
	TH_EQ(PAPI_event_name_to_code("perf::CONTEXT-SWITCHES", &cs), PAPI_OK);
	run(cs);
	if (PAPI_query_event(PAPI_REF_CYC) != PAPI_OK)
		run(PAPI_REF_CYC);
	mixing();
	return th_done();
}
