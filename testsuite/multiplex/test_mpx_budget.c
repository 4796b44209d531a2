/*
 * test_mpx_budget.c - multiplexing four real software events with the
 * counter budget lowered to 2 (TALLY_PERF_MAX_COUNTERS=2, set before
 * PAPI_library_init).
 *
 * Work: touching 25 x 4000 fresh pages (100000 minor faults), mapped
 * before the counting starts and unmapped after it stops, so that faults
 * come at one rate over the whole window: with munmap inside it, every
 * round had a stretch without faults, and a rotation in step with the
 * rounds put those stretches in one slot (estimates 5-11% high, quiet
 * machine, one run in 8 past 10%).  Each
 * event is first counted alone over the same work (the reference); then
 * the four together, multiplexed by the kernel-mode request
 * (PAPI_set_multiplex) and by PAPI_MULTIPLEX_FORCE_SW: the fault counts
 * are within 10% of their reference, the clocks within 10% of the
 * thread's CPU time of the same run (the CPU time of the same work varies
 * between runs on a loaded machine), and coverage is about 1/2 for each
 * event, equal for slot mates, complementary across slots.  Without
 * multiplexing the budget refuses a third event (PAPI_ECNFLCT); two
 * events fit and are counted whole (coverage 1).  Every error of the
 * multiplex calls is checked.
 */
#include <stdlib.h>

#include "api_util.h"
#include "fork_util.h"
#include "tally.h"

#define NEV 4
#define ROUNDS 25
#define PAGES 4000

static const char *names[NEV] = { "perf::PAGE-FAULTS", "perf::MINOR-FAULTS", "perf::TASK-CLOCK", "perf::CPU-CLOCK" };

/* Count `es` over the work; returns the thread CPU time it took. */
static long long measure(int es, long long *v)
{
	char *maps[ROUNDS];
	long long t0;

	for (int r = 0; r < ROUNDS; r++)
		if ((maps[r] = map_fresh_pages(PAGES)) == NULL)
			TH_FATAL("mmap of the work's pages failed");
	TH_EQ(PAPI_start(es), PAPI_OK);
	t0 = th_thread_cpu_ns();
	for (int r = 0; r < ROUNDS; r++)
		touch_pages(maps[r], PAGES);
	t0 = th_thread_cpu_ns() - t0;
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	for (int r = 0; r < ROUNDS; r++)
		unmap_pages(maps[r], PAGES);
	return t0;
}

static void reference(long long *ref)
{
	for (int i = 0; i < NEV; i++) {
		int es = api_set_of(&names[i], 1);
		long long cpu = measure(es, &ref[i]);

		printf("alone %-20s %12lld  (cpu %lld ns)\n", names[i], ref[i], cpu);
		PAPI_cleanup_eventset(es);
		PAPI_destroy_eventset(&es);
	}
}

static void check_mode(int line, int force_sw, const long long *ref)
{
	PAPI_option_t o;
	double cov[NEV];
	long long v[NEV], cpu;
	int es = PAPI_NULL;

	th_at(line);
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_assign_eventset_component(es, 0), PAPI_OK);
	memset(&o, 0, sizeof o);
	o.multiplex.eventset = es;
	o.multiplex.ns = 1000000; /* rotate every 1 ms of CPU */
	o.multiplex.flags = force_sw ? PAPI_MULTIPLEX_FORCE_SW : 0;
	TH_EQ(PAPI_set_opt(PAPI_MULTIPLEX, &o), PAPI_OK);
	for (int i = 0; i < NEV; i++)
		TH_EQ(PAPI_add_named_event(es, names[i]), PAPI_OK);
	TH_EQ(PAPI_get_multiplex(es), 1);
	memset(&o, 0, sizeof o);
	o.multiplex.eventset = es;
	TH_EQ(PAPI_get_opt(PAPI_MULTIPLEX, &o), 1);
	TH_EQ(o.multiplex.flags, force_sw ? PAPI_MULTIPLEX_FORCE_SW : 0);
	th_clock_begin();
	cpu = measure(es, v);
	TH_EQ(tally_multiplex_coverage(es, cov), PAPI_OK);
	for (int i = 0; i < NEV; i++) {
		printf("%s %-20s %12lld  coverage %.3f\n", force_sw ? "sw    " : "kernel", names[i], v[i], cov[i]);
		/* the clocks' truth is this run's CPU time (below): the same
		 * work takes different CPU time from run to run on a loaded
		 * machine, page faults do not */
		if (i < 2)
			TH_NEAR(v[i], ref[i], 0.10);
		TH_CHECK(cov[i] > 0.3 && cov[i] < 0.7);
	}
	TH_NEAR_CLOCK(v[2], cpu);
	TH_NEAR_CLOCK(v[3], cpu);
	TH_NEAR(cov[0], cov[1], 0.01);
	TH_NEAR(cov[2], cov[3], 0.01);
	TH_NEAR(cov[0] + cov[2], 1.0, 0.02);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	th_at(0);
}

static void check_budget_refusal(void)
{
	int es = api_set_of(names, 2);
	double cov[3];
	long long v[3];

	TH_EQ(PAPI_add_named_event(es, names[2]), PAPI_ECNFLCT);
	measure(es, v);
	TH_EQ(tally_multiplex_coverage(es, cov), PAPI_OK);
	TH_EQ(cov[0] == 1.0 && cov[1] == 1.0, 1);
	TH_NEAR(v[0], ROUNDS * PAGES, 0.02);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
}

static void before_init(void)
{
	TH_EQ(PAPI_multiplex_init(), PAPI_ENOINIT);
	TH_EQ(PAPI_set_multiplex(0), PAPI_ENOINIT);
}

static void check_errors(void)
{
	int es = api_set_of(names, 1), other = api_set_of(names, 1);
	PAPI_option_t o;
	double cov[1];

	memset(&o, 0, sizeof o);
	o.multiplex.eventset = other;
	o.multiplex.flags = 0x100;
	TH_EQ(PAPI_set_multiplex(es), PAPI_OK);
	struct { int line; int rc; int want; } rows[] = {
		{ __LINE__, PAPI_set_multiplex(31337), PAPI_ENOEVST },
		{ __LINE__, PAPI_get_multiplex(31337), PAPI_ENOEVST },
		{ __LINE__, PAPI_set_multiplex(es), PAPI_EINVAL }, /* already */
		{ __LINE__, PAPI_set_opt(PAPI_MULTIPLEX, &o), PAPI_EINVAL }, /* bad flags */
		{ __LINE__, PAPI_get_multiplex(other), 0 },
		{ __LINE__, tally_multiplex_coverage(31337, cov), PAPI_ENOEVST },
		{ __LINE__, tally_multiplex_coverage(es, NULL), PAPI_EINVAL },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(rows[i].rc, rows[i].want);
	}
	th_at(0);
	TH_EQ(PAPI_start(other), PAPI_OK);
	TH_EQ(PAPI_set_multiplex(other), PAPI_EISRUN);
	TH_EQ(PAPI_stop(other, NULL), PAPI_OK);
	/* never started: nothing counted yet, coverage 0 */
	TH_EQ(tally_multiplex_coverage(es, cov), PAPI_OK);
	TH_EQ(cov[0] == 0.0, 1);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	PAPI_cleanup_eventset(other);
	PAPI_destroy_eventset(&other);
}

int main(void)
{
	long long ref[NEV];

	setenv("TALLY_PERF_MAX_COUNTERS", "2", 1);
	RUN_FRESH(before_init);
	api_init();
	TH_EQ(PAPI_multiplex_init(), PAPI_OK);
	TH_EQ(PAPI_get_opt(PAPI_MAX_HWCTRS, NULL), 2);
	check_errors();
	check_budget_refusal();
	reference(ref);
	struct { int line; int force_sw; } rows[] = {
		{ __LINE__, 0 },
		{ __LINE__, 1 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		check_mode(rows[i].line, rows[i].force_sw, ref);
	PAPI_shutdown();
	return th_done();
}
