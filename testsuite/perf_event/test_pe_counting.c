/*
 * test_pe_counting.c - counts against ground truth: page faults from N
 * freshly touched pages (and getrusage), task-clock against
 * CLOCK_THREAD_CPUTIME_ID, reset, monotonicity, stop.
 */
#include <sys/resource.h>

#include "pe_test.h"

enum { TCLK, PGF, CSW, NEV };
static const char *const names[NEV] = { "perf::TASK-CLOCK", "perf::PAGE-FAULTS", "perf::CONTEXT-SWITCHES" };
#define NPAGES 4000

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}

static void check_page_faults(void *ctl)
{
	long long v[NEV];
	char *p = fresh_pages(NPAGES);
	long before;

	TH_CHECK(p != NULL);
	TH_EQ(pe->ctl_start(ctl), PAPI_OK);
	before = minflt();
	touch_pages(p, NPAGES);
	long faults = minflt() - before;
	TH_EQ(pe->ctl_read(ctl, v), PAPI_OK);
	printf("page faults: counted %lld, touched %d, rusage %ld\n", v[PGF], NPAGES, faults);
	TH_NEAR(v[PGF], NPAGES, 0.02);
	TH_NEAR(v[PGF], faults, 0.02);
	munmap(p, (size_t)NPAGES * (size_t)sysconf(_SC_PAGESIZE));
}

static void check_task_clock(void *ctl)
{
	long long v[NEV], t0, t1;

	th_clock_begin();
	TH_EQ(pe->ctl_start(ctl), PAPI_OK);
	t0 = th_thread_cpu_ns();
	th_spin_cpu_ns(200000000LL);
	t1 = th_thread_cpu_ns();
	TH_EQ(pe->ctl_read(ctl, v), PAPI_OK);
	printf("task-clock: counted %lld ns, CLOCK_THREAD_CPUTIME_ID %lld ns\n", v[TCLK], t1 - t0);
	TH_NEAR_CLOCK(v[TCLK], t1 - t0);
}

static void check_reset(void *ctl)
{
	long long before[NEV], after[NEV];

	th_spin_cpu_ns(20000000LL);
	TH_EQ(pe->ctl_read(ctl, before), PAPI_OK);
	TH_EQ(pe->ctl_reset(ctl), PAPI_OK);
	TH_EQ(pe->ctl_read(ctl, after), PAPI_OK);
	printf("after reset: task-clock %lld ns (was %lld), faults %lld\n", after[TCLK], before[TCLK], after[PGF]);
	TH_CHECK(after[TCLK] >= 0 && after[TCLK] < 1000000LL);
	TH_CHECK(after[TCLK] < before[TCLK] / 100);
	TH_CHECK(after[PGF] <= 2);
}

static void check_monotonic(void *ctl)
{
	long long prev[NEV] = { 0 }, v[NEV];
	int bad = 0;

	for (int i = 0; i < 200; i++) {
		th_spin_cpu_ns(20000);
		TH_EQ(pe->ctl_read(ctl, v), PAPI_OK);
		for (int k = 0; k < NEV; k++)
			bad += v[k] < prev[k];
		memcpy(prev, v, sizeof v);
	}
	TH_EQ(bad, 0);
}

static void check_stop(void *ctl)
{
	long long v1[NEV], v2[NEV];
	char *p = fresh_pages(100);

	TH_EQ(pe->ctl_stop(ctl), PAPI_OK);
	TH_EQ(pe->ctl_read(ctl, v1), PAPI_OK);
	th_spin_cpu_ns(10000000LL);
	touch_pages(p, 100);
	usleep(1000);
	TH_EQ(pe->ctl_read(ctl, v2), PAPI_OK);
	for (int k = 0; k < NEV; k++)
		TH_EQ(v2[k], v1[k]);
	TH_CHECK(v1[TCLK] > 0);
	munmap(p, 100 * (size_t)sysconf(_SC_PAGESIZE));
}

/* Start/stop cycles: every cycle counts its own pages (Linux 6.x lost
 * sibling counts across cycles when kinds were mixed in one group). */
static void check_cycles(void *ctl)
{
	long long v[NEV];

	for (int cyc = 0; cyc < 5; cyc++) {
		char *p = fresh_pages(500);

		th_at(cyc + 1);
		TH_EQ(pe->ctl_start(ctl), PAPI_OK);
		touch_pages(p, 500);
		TH_EQ(pe->ctl_stop(ctl), PAPI_OK);
		TH_EQ(pe->ctl_read(ctl, v), PAPI_OK);
		TH_NEAR(v[PGF], 500, 0.02);
		TH_CHECK(v[TCLK] > 0);
		munmap(p, 500 * (size_t)sysconf(_SC_PAGESIZE));
	}
	th_at(0);
}

static void check_args(void *ctl)
{
	long long v[NEV];
	int fds[4];

	TH_EQ(pe->ctl_read(NULL, v), PAPI_EINVAL);
	TH_EQ(pe->ctl_read(ctl, NULL), PAPI_EINVAL);
	TH_EQ(pe->ctl_start(NULL), PAPI_EINVAL);
	TH_EQ(pe->ctl_update(ctl, names, TLY_PE_MAX_EVENTS + 1), PAPI_ECOUNT);
	TH_EQ(tly_pe_ctl_fds(ctl, fds, 4), NEV);
	TH_CHECK(fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0);
}

int main(void)
{
	PAPI_component_info_t info;
	struct tly_ctl_opts o = pe_test_opts(PAPI_DOM_USER);
	int rc;
	void *ctl;

	pe_test_init(&info);
	ctl = pe_test_ctl(&o, names, NEV, &rc);
	TH_EQ(rc, PAPI_OK);
	if (!ctl)
		return th_done();
	check_page_faults(ctl);
	check_task_clock(ctl);
	check_reset(ctl);
	check_monotonic(ctl);
	check_stop(ctl);
	check_cycles(ctl);
	check_args(ctl);
	pe_test_ctl_free(ctl);
	pe->shutdown();
	return th_done();
}
