/*
 * test_mpx_kernel.c - multiplexed sets without a counter budget: perf
 * never over-commits software events, so every counter runs all the
 * time; each counter is its own perf group (kernel multiplexing) and is
 * reported whole: PAGE-FAULTS and MINOR-FAULTS equal the pages touched
 * (within 2%), TASK-CLOCK the thread's CPU time (within 5%), coverage
 * exactly 1.  Rows: PAPI_set_multiplex and PAPI_MULTIPLEX_FORCE_SW (no
 * hardware PMU: one slot holds all, no rotation).  A second start/stop
 * cycle and PAPI_reset restart the coverage clock.
 */
#include "api_util.h"
#include "tally.h"

#define NEV 4
#define PAGES 30000

static const char *names[NEV] = { "perf::PAGE-FAULTS", "perf::MINOR-FAULTS", "perf::TASK-CLOCK", "perf::CPU-CLOCK" };

static void check(int line, int force_sw)
{
	PAPI_option_t o;
	long long v[NEV], t0;
	double cov[NEV];
	int es = PAPI_NULL;

	th_at(line);
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_assign_eventset_component(es, 0), PAPI_OK);
	memset(&o, 0, sizeof o);
	o.multiplex.eventset = es;
	o.multiplex.flags = force_sw ? PAPI_MULTIPLEX_FORCE_SW : 0;
	TH_EQ(PAPI_set_opt(PAPI_MULTIPLEX, &o), PAPI_OK);
	for (int i = 0; i < NEV; i++)
		TH_EQ(PAPI_add_named_event(es, names[i]), PAPI_OK);
	for (int cycle = 0; cycle < 2; cycle++) {
		th_clock_begin();
		TH_EQ(PAPI_start(es), PAPI_OK);
		t0 = th_thread_cpu_ns();
		touch_fresh_pages(PAGES);
		t0 = th_thread_cpu_ns() - t0;
		TH_EQ(PAPI_read(es, v), PAPI_OK);
		TH_EQ(tally_multiplex_coverage(es, cov), PAPI_OK);
		TH_NEAR(v[0], PAGES, 0.02);
		TH_NEAR(v[1], PAGES, 0.02);
		TH_NEAR_CLOCK(v[2], t0);
		for (int i = 0; i < NEV; i++)
			TH_CHECK(cov[i] == 1.0);
		TH_EQ(PAPI_reset(es), PAPI_OK);
		touch_fresh_pages(PAGES / 2);
		TH_EQ(PAPI_stop(es, v), PAPI_OK);
		TH_NEAR(v[0], PAGES / 2, 0.03);
	}
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	th_at(0);
}

int main(void)
{
	api_init();
	TH_EQ(PAPI_multiplex_init(), PAPI_OK);
	struct { int line; int force_sw; } rows[] = { { __LINE__, 0 }, { __LINE__, 1 } };
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		check(rows[i].line, rows[i].force_sw);
	PAPI_shutdown();
	return th_done();
}
