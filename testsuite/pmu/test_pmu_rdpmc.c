/*
 * test_pmu_rdpmc.c - user-space counter reads on a real PMU.
 *
 * With kernel.perf_user_access=1 (the guest's init sets it) an arm64
 * counter opened for this thread is read with mrs from the page the
 * kernel maps (pe_rdpmc.c).  For each event the guest lets user space
 * read, the test checks that
 *   - the read really takes the user path (the page names a counter and
 *     tly_pe_rdpmc_read succeeds while the counter runs);
 *   - deltas read that way over pmu_loop(n) are exactly 2n apart from a
 *     constant measured with n = 0, like deltas read with read();
 *   - a user read followed at once by read() differs by the same small
 *     constant each time (the instructions between the two reads).
 * QEMU's cortex-a57 lets EL0 read the cycle counter; that one is
 * required.  Other counters are checked where the page allows them.
 */
#include "pe_test.h"
#include "pmu_util.h"

#define REPS 3

/* Delta of the counter over pmu_loop(n), read the user way or with read(). */
static long long delta(struct tly_pe_ctl *c, uint64_t n, int user)
{
	long long a = -1, b = -1;

	c->g.rdpmc = user;
	TH_EQ(pe->ctl_read(c, &a), PAPI_OK);
	pmu_loop(n);
	TH_EQ(pe->ctl_read(c, &b), PAPI_OK);
	c->g.rdpmc = 1;
	return b - a;
}

static void check_deltas(struct tly_pe_ctl *c, const char *name)
{
	for (int user = 1; user >= 0; user--) {
		long long k = delta(c, 0, user);

		for (int r = 0; r < REPS; r++)
			TH_EQ(delta(c, 0, user), k);
		long long d = delta(c, 1000000, user);
		printf("%s via %s: constant %lld, loop of 2000000 -> %lld\n", name, user ? "mrs" : "read()", k, d);
		TH_EQ(d - k, 2000000);
	}
}

static void check_agreement(struct tly_pe_ctl *c, const char *name)
{
	long long u, s, gap = -1;

	for (int r = 0; r < REPS; r++) {
		c->g.rdpmc = 1;
		TH_EQ(pe->ctl_read(c, &u), PAPI_OK);
		c->g.rdpmc = 0;
		TH_EQ(pe->ctl_read(c, &s), PAPI_OK);
		c->g.rdpmc = 1;
		if (r == 0)
			gap = s - u;
		TH_EQ(s - u, gap);
	}
	printf("%s: read() - mrs read = %lld instructions between them\n", name, gap);
	TH_CHECK(gap >= 0 && gap < 2000);
}

/* 1 when the event's counter was readable from user space. */
static int check_event(const char *name, int required)
{
	struct tly_ctl_opts o = pe_test_opts(PAPI_DOM_USER);
	const char *names[] = { name };
	long long v;
	int rc, ok;
	struct tly_pe_ctl *c = pe_test_ctl(&o, names, 1, &rc);

	TH_EQ(rc, PAPI_OK);
	if (!c)
		return 0;
	ok = c->g.rdpmc;
	printf("%s: user page %s\n", name, ok ? "maps a readable counter" : "does not allow user reads");
	if (required)
		TH_CHECK(ok);
	if (ok) {
		TH_EQ(pe->ctl_start(c), PAPI_OK);
		TH_EQ(tly_pe_rdpmc_read(c->g.pages[0], &v), PAPI_OK);
		printf("%s: index %u, pmc_width %u\n", name, c->g.pages[0]->index, c->g.pages[0]->pmc_width);
		check_deltas(c, name);
		check_agreement(c, name);
		TH_EQ(pe->ctl_stop(c), PAPI_OK);
		/* stopped: no counter, the user path must refuse */
		TH_EQ(tly_pe_rdpmc_read(c->g.pages[0], &v), PAPI_ECMP);
	}
	pe_test_ctl_free(c);
	return ok;
}

int main(void)
{
	PAPI_component_info_t info;
	FILE *f;
	int access = 0;

#if !defined(__aarch64__)
	TH_SKIP("this test drives the arm64 user read path: run it in the arm64 QEMU test bed");
#endif
	pe_test_init(&info);
	if (info.num_cntrs == 0)
		TH_SKIP("no hardware PMU here");
	f = fopen("/proc/sys/kernel/perf_user_access", "r");
	if (!f || fscanf(f, "%d", &access) != 1 || access != 1) {
		if (f)
			fclose(f);
		TH_SKIP("kernel.perf_user_access is not 1: user space may not read counters");
	}
	fclose(f);
	printf("component: fast_counter_read %d\n", info.fast_counter_read);
	check_event("arm_ac57::CPU_CYCLES", 1);
	check_event("arm_ac57::INST_RETIRED", 0);
	pe->shutdown();
	return th_done();
}
