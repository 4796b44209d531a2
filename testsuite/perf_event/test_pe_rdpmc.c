/*
 * test_pe_rdpmc.c - the user-space read path.
 *
 * The seqlock reader must refuse pages that do not allow rdpmc (software
 * events, index 0), so the caller falls back to read().  Where the kernel
 * offers rdpmc for a hardware event (x86-64 with a PMU; the arm64 QEMU
 * test bed later), counts read both ways must agree; TALLY_PERF_RDPMC=0
 * must turn the path off.  Without a hardware PMU that part skips.
 */
#include <stdlib.h>
#include <string.h>

#include "pe_test.h"

static void check_refusals(void)
{
	static struct perf_event_mmap_page pg;

	memset(&pg, 0, sizeof pg);
	long long v = 42;
	TH_EQ(tly_pe_rdpmc_read(&pg, &v), PAPI_ECMP);     /* no cap_user_rdpmc */
	pg.cap_user_rdpmc = 1;
	pg.pmc_width = 48;
	TH_EQ(tly_pe_rdpmc_read(&pg, &v), PAPI_ECMP);     /* index 0: not on a counter */
	pg.index = 1;
	pg.pmc_width = 0;
	TH_EQ(tly_pe_rdpmc_read(&pg, &v), PAPI_ECMP);     /* nonsense width */
	TH_EQ(v, 42);
}

static void check_hw_agrees(void)
{
	struct tly_ctl_opts o = pe_test_opts(PAPI_DOM_USER);
	const char *names[] = { "perf::INSTRUCTIONS" };
	long long a, b;
	int rc;
	void *ctl = pe_test_ctl(&o, names, 1, &rc);
	struct tly_pe_ctl *c = ctl;

	TH_EQ(rc, PAPI_OK);
	if (!ctl)
		return;
	TH_CHECK(c->g.rdpmc);
	TH_EQ(pe->ctl_start(ctl), PAPI_OK);
	th_spin_cpu_ns(1000000);
	TH_EQ(pe->ctl_read(ctl, &a), PAPI_OK);     /* rdpmc */
	c->g.rdpmc = 0;
	TH_EQ(pe->ctl_read(ctl, &b), PAPI_OK);     /* read(), later */
	TH_CHECK(a > 0 && b >= a && b - a < a / 10 + 100000);
	pe_test_ctl_free(ctl);
}

int main(void)
{
	PAPI_component_info_t info;

	check_refusals();
	setenv("TALLY_PERF_RDPMC", "0", 1);
	TH_EQ(tly_pe_rdpmc_allowed(), 0);
	unsetenv("TALLY_PERF_RDPMC");
	TH_EQ(tly_pe_rdpmc_allowed(), 1);
	pe_test_init(&info);
	if (!tly_pe_probe_get()->rdpmc_ok) {
		printf("%d checks passed; the kernel offers no rdpmc here (%s)\n", th_checks, info.disabled_reason);
		TH_EQ(info.fast_counter_read, 0);
		pe->shutdown();
		if (th_failures)
			return th_done();
		TH_SKIP("no hardware counter readable from user space on this machine");
	}
	TH_EQ(info.fast_counter_read, 1);
	check_hw_agrees();
	pe->shutdown();
	return th_done();
}
