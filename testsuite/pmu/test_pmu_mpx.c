/*
 * test_pmu_mpx.c - more events than the PMU has counters.
 *
 * The guest's armv8_pmuv3 has 6 programmable counters and the cycle
 * counter.  Eight events (CPU_CYCLES, which may take the cycle counter,
 * plus seven for the six programmable counters) cannot be counted
 * together: without multiplexing PAPI_add_event or PAPI_start must say
 * PAPI_ECNFLCT.  With PAPI_set_multiplex the kernel rotates them and the
 * scaled estimates of the events whose truth is known (user instructions
 * and user cycles of a 2*10^8-instruction loop, one cycle per instruction
 * under QEMU -icount) must be within 5%.  QEMU implements only those two
 * events (the PMU advertises no other in PMCEID), so the eight are the
 * two in several privilege filters: user only (the default and ":u"),
 * kernel only (":k", truth unknown: not asserted) and both (":u:k",
 * truth unknown: not asserted).
 */
#include <string.h>

#include "pmu_util.h"

#define NEV 8
#define LOOP_N 100000000ull

static const char *const events[NEV] = {
	"arm_ac57::INST_RETIRED",     "arm_ac57::CPU_CYCLES",       "arm_ac57::INST_RETIRED:u",
	"arm_ac57::CPU_CYCLES:u",     "arm_ac57::INST_RETIRED:k",   "arm_ac57::CPU_CYCLES:k",
	"arm_ac57::INST_RETIRED:u:k", "arm_ac57::CPU_CYCLES:u:k",
};
#define NTRUTH 4 /* the first four count user mode only: truth 2n + a constant */

/* Add all events; the first refusal's code (PAPI_OK if none). */
static int add_all(int set, int *added)
{
	int rc = PAPI_OK;

	*added = 0;
	for (int i = 0; i < NEV && rc == PAPI_OK; i++) {
		rc = PAPI_add_named_event(set, events[i]);
		if (rc == PAPI_OK)
			(*added)++;
	}
	return rc;
}

static void check_conflict(void)
{
	int set = PAPI_NULL, added, rc;
	long long v[NEV];

	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	rc = add_all(set, &added);
	if (rc == PAPI_OK)
		rc = pmu_measure(set, 1000, v);
	printf("without multiplexing: %d of %d events added, then %s\n", added, NEV, PAPI_strerror(rc));
	TH_EQ(rc, PAPI_ECNFLCT);
	TH_CHECK(added >= 7); /* the 7 counters hold 7 events: the eighth conflicts */
	PAPI_cleanup_eventset(set);
	TH_EQ(PAPI_destroy_eventset(&set), PAPI_OK);
}

static void check_multiplexed(void)
{
	int set = PAPI_NULL, added;
	long long v[NEV];
	const long long truth = 2 * (long long)LOOP_N;

	TH_EQ(PAPI_multiplex_init(), PAPI_OK);
	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_assign_eventset_component(set, 0), PAPI_OK);
	TH_EQ(PAPI_set_multiplex(set), PAPI_OK);
	TH_EQ(add_all(set, &added), PAPI_OK);
	TH_EQ(added, NEV);
	memset(v, 0, sizeof v);
	TH_EQ(pmu_measure(set, LOOP_N, v), PAPI_OK);
	for (int i = 0; i < NEV; i++)
		printf("  %-28s %lld\n", events[i], v[i]);
	printf("multiplexed estimates of the user-mode events against the truth %lld (+ a constant < 5000):\n",
	       truth);
	for (int i = 0; i < NTRUTH; i++) {
		printf("  %-28s %lld (%+.3f%%)\n", events[i], v[i], 100.0 * ((double)v[i] - (double)truth) / (double)truth);
		TH_NEAR(v[i], truth, 0.05);
	}
	PAPI_cleanup_eventset(set);
	TH_EQ(PAPI_destroy_eventset(&set), PAPI_OK);
}

int main(void)
{
	pmu_require();
	if (PAPI_get_component_info(0)->num_cntrs > 7)
		TH_SKIP("this PMU has more than 7 counters; the test is written for the QEMU cortex-a57 guest");
	check_conflict();
	check_multiplexed();
	PAPI_shutdown();
	return th_done();
}
