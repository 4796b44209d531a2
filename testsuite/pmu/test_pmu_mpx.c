/*
 * test_pmu_mpx.c - more events than the PMU has counters.
 *
 * The guest's armv8_pmuv3 has 6 programmable counters and the cycle
 * counter.  Eight events (CPU_CYCLES, which may take the cycle counter,
 * plus seven for the six programmable counters) cannot be counted
 * together there: without multiplexing PAPI_add_event or PAPI_start must say
 * PAPI_ECNFLCT.  The test finds how many of its events fit (they must
 * fill the programmable counters, plus at most the cycle counter), then
 * multiplexes one more; a PMU with more counters than the guest gets
 * user-mode spellings of the same two events (up to 16 in all).  With PAPI_set_multiplex the kernel rotates them and the
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

#define NMAX 16
#define LOOP_N 100000000ull

/* The eight of the cortex-a57 guest first; a PMU with more counters gets
 * more user-mode spellings of the same two events (one more than it has
 * counters), whose truth is known too. */
static const struct {
	const char *name;
	int user_only; /* truth 2n + a constant */
} all_events[NMAX] = {
	{"arm_ac57::INST_RETIRED", 1},          {"arm_ac57::CPU_CYCLES", 1},
	{"arm_ac57::INST_RETIRED:u", 1},        {"arm_ac57::CPU_CYCLES:u", 1},
	{"arm_ac57::INST_RETIRED:k", 0},        {"arm_ac57::CPU_CYCLES:k", 0},
	{"arm_ac57::INST_RETIRED:u:k", 0},      {"arm_ac57::CPU_CYCLES:u:k", 0},
	{"arm_ac57::INST_RETIRED:u=1", 1},      {"arm_ac57::CPU_CYCLES:u=1", 1},
	{"arm_ac57::INST_RETIRED:k=0", 1},      {"arm_ac57::CPU_CYCLES:k=0", 1},
	{"arm_ac57::INST_RETIRED:u=1:k=0", 1},  {"arm_ac57::CPU_CYCLES:u=1:k=0", 1},
	{"arm_ac57::INST_RETIRED:k=0:u=1", 1},  {"arm_ac57::CPU_CYCLES:k=0:u=1", 1},
};
/* Add all events; the first refusal's code (PAPI_OK if none). */
static int add_all(int set, int nev, int *added)
{
	int rc = PAPI_OK;

	*added = 0;
	for (int i = 0; i < nev && rc == PAPI_OK; i++) {
		rc = PAPI_add_named_event(set, all_events[i].name);
		if (rc == PAPI_OK)
			(*added)++;
	}
	return rc;
}

/* How many of the events, in order, the PMU counts together without
 * multiplexing: the set of one more is refused with PAPI_ECNFLCT (by
 * PAPI_add_event or PAPI_start).  Returns 0 if no refusal came. */
static int count_fitting(int ncntrs)
{
	for (int nev = 1; nev <= NMAX; nev++) {
		int set = PAPI_NULL, added, rc;
		long long v[NMAX];

		TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
		rc = add_all(set, nev, &added);
		if (rc == PAPI_OK)
			rc = pmu_measure(set, 1000, v);
		PAPI_cleanup_eventset(set);
		TH_EQ(PAPI_destroy_eventset(&set), PAPI_OK);
		if (rc != PAPI_OK) {
			printf("without multiplexing: %d of %d events added, then %s\n", added, nev,
			       PAPI_strerror(rc));
			TH_EQ(rc, PAPI_ECNFLCT);
			/* every programmable counter holds one (the cycle counter may hold one more) */
			TH_CHECK(nev - 1 >= ncntrs);
			TH_CHECK(nev - 1 <= ncntrs + 1);
			return nev - 1;
		}
	}
	printf("without multiplexing: all %d events were counted together\n", NMAX);
	TH_CHECK(0); /* a PMU of at most 15 counters must refuse 16 events */
	return 0;
}

static void check_multiplexed(int nev)
{
	int set = PAPI_NULL, added;
	long long v[NMAX];
	const long long truth = 2 * (long long)LOOP_N;

	TH_EQ(PAPI_multiplex_init(), PAPI_OK);
	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_assign_eventset_component(set, 0), PAPI_OK);
	TH_EQ(PAPI_set_multiplex(set), PAPI_OK);
	TH_EQ(add_all(set, nev, &added), PAPI_OK);
	TH_EQ(added, nev);
	memset(v, 0, sizeof v);
	TH_EQ(pmu_measure(set, LOOP_N, v), PAPI_OK);
	for (int i = 0; i < nev; i++)
		printf("  %-32s %lld\n", all_events[i].name, v[i]);
	printf("multiplexed estimates of the user-mode events against the truth %lld (+ a constant < 5000):\n",
	       truth);
	for (int i = 0; i < nev; i++) {
		if (!all_events[i].user_only)
			continue;
		printf("  %-32s %lld (%+.3f%%)\n", all_events[i].name, v[i],
		       100.0 * ((double)v[i] - (double)truth) / (double)truth);
		TH_NEAR(v[i], truth, 0.05);
	}
	PAPI_cleanup_eventset(set);
	TH_EQ(PAPI_destroy_eventset(&set), PAPI_OK);
}

int main(void)
{
	pmu_require();
	int ncntrs = PAPI_get_component_info(0)->num_cntrs;
	printf("the PMU has %d programmable counters\n", ncntrs);
	int fit = count_fitting(ncntrs);
	if (fit > 0)
		check_multiplexed(fit + 1);
	PAPI_shutdown();
	return th_done();
}
