/*
 * test_pmu_mpx_coverage.c - eight hardware events on the guest's six
 * programmable counters (plus the cycle counter), multiplexed two ways:
 * by the kernel (PAPI_set_multiplex) and by the component's own timer
 * (PAPI_MULTIPLEX_FORCE_SW: slots of as many counters as the PMU has).
 * QEMU implements only instructions and cycles (the PMU advertises no
 * other common event in PMCEID, pe_pmceid.c), so the eight are those two
 * in several privilege filters: user only (the default and ":u"), kernel
 * only (":k") and both (":u:k").  The user-mode ones count a
 * 2*10^8-instruction loop exactly under QEMU -icount and are estimated
 * within 5% (the truth of the others is not known: not asserted);
 * tally_multiplex_coverage reports each event counted part of the time
 * (0 < f < 1 for the rotated ones, all > 0), and the values are scaled
 * by it.
 */
#include <string.h>

#include "pmu_util.h"
#include "tally.h"

#define NEV 8
#define LOOP_N 100000000ull

static const char *const events[NEV] = {
	"arm_ac57::INST_RETIRED",     "arm_ac57::CPU_CYCLES",       "arm_ac57::INST_RETIRED:u",
	"arm_ac57::CPU_CYCLES:u",     "arm_ac57::INST_RETIRED:k",   "arm_ac57::CPU_CYCLES:k",
	"arm_ac57::INST_RETIRED:u:k", "arm_ac57::CPU_CYCLES:u:k",
};
#define NTRUTH 4 /* the first four count user mode only: the loop's count */

static void row(int line, int force_sw)
{
	PAPI_option_t o;
	long long v[NEV];
	double cov[NEV];
	int set = PAPI_NULL, rotated = 0;

	th_at(line);
	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_assign_eventset_component(set, 0), PAPI_OK);
	memset(&o, 0, sizeof o);
	o.multiplex.eventset = set;
	o.multiplex.ns = 1000000;
	o.multiplex.flags = force_sw ? PAPI_MULTIPLEX_FORCE_SW : 0;
	TH_EQ(PAPI_set_opt(PAPI_MULTIPLEX, &o), PAPI_OK);
	for (int i = 0; i < NEV; i++)
		if (PAPI_add_named_event(set, events[i]) != PAPI_OK)
			TH_SKIP("this guest's PMU lacks the Cortex-A57 events the test uses");
	TH_EQ(pmu_measure(set, LOOP_N, v), PAPI_OK);
	TH_EQ(tally_multiplex_coverage(set, cov), PAPI_OK);
	for (int i = 0; i < NEV; i++) {
		printf("%s %-28s %14lld coverage %.3f\n", force_sw ? "sw    " : "kernel", events[i], v[i], cov[i]);
		TH_CHECK(cov[i] > 0.0 && cov[i] <= 1.0);
		rotated += cov[i] < 0.99;
	}
	TH_CHECK(rotated > 0);
	for (int i = 0; i < NTRUTH; i++)
		TH_NEAR(v[i], PMU_LOOP_INS(LOOP_N), 0.05);
	PAPI_cleanup_eventset(set);
	PAPI_destroy_eventset(&set);
	th_at(0);
}

int main(void)
{
	pmu_require();
	TH_EQ(PAPI_multiplex_init(), PAPI_OK);
	struct { int line; int force_sw; } rows[] = { { __LINE__, 0 }, { __LINE__, 1 } };
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		row(rows[i].line, rows[i].force_sw);
	PAPI_shutdown();
	return th_done();
}
