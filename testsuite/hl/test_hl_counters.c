/*
 * test_hl_counters.c - PAPI 3.5 high-level counters against ground truth:
 * page faults from touching fresh pages, perf::TASK-CLOCK against
 * CLOCK_THREAD_CPUTIME_ID; read/accum reset semantics; error codes.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* mmap/madvise flags, mkdtemp, setenv, gethostname */
#endif
#include <sys/resource.h>
#include "papi.h"
#include "tharness.h"
#include "th_sys.h"
#include "hl_test_util.h"

#define NPAGES 2000
#define SPIN_NS 60000000LL

static int ev[2];        /* perf::PAGE-FAULTS, perf::TASK-CLOCK */
static long long v[4];
static long long f_last; /* the thread's faults before the call that last reset the counters */

static void codes(void)
{
	TH_EQ(PAPI_event_name_to_code("perf::PAGE-FAULTS", &ev[0]), PAPI_OK);
	TH_EQ(PAPI_event_name_to_code("perf::TASK-CLOCK", &ev[1]), PAPI_OK);
}

/* Calls that must fail, with the code PAPI 3.5 gives. */
static void error_table(int running)
{
	static const struct row {
		int line, running; /* row applies when started == running */
		int call;          /* 0 start, 1 read, 2 accum, 3 stop */
		int use_null, len, expect;
	} rows[] = {
		{ __LINE__, 0, 1, 0, 2, PAPI_ENOTRUN },
		{ __LINE__, 0, 2, 0, 2, PAPI_ENOTRUN },
		{ __LINE__, 0, 3, 0, 2, PAPI_ENOTRUN },
		{ __LINE__, 0, 0, 1, 2, PAPI_EINVAL },
		{ __LINE__, 0, 0, 0, 0, PAPI_EINVAL },
		{ __LINE__, 0, 0, 0, -1, PAPI_EINVAL },
		{ __LINE__, 0, 1, 1, 2, PAPI_EINVAL },
		{ __LINE__, 0, 1, 0, 0, PAPI_EINVAL },
		{ __LINE__, 1, 0, 0, 2, PAPI_EISRUN },
		{ __LINE__, 1, 1, 0, 1, PAPI_EINVAL }, /* fewer slots than events */
		{ __LINE__, 1, 2, 0, 1, PAPI_EINVAL },
		{ __LINE__, 1, 3, 0, 1, PAPI_EINVAL },
		{ __LINE__, 1, 2, 1, 2, PAPI_EINVAL },
		{ __LINE__, 1, 3, 0, -3, PAPI_EINVAL },
	};

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct row *r = &rows[i];
		long long *vals = r->use_null ? NULL : v;
		int rc;

		if (r->running != running)
			continue;
		th_at(r->line);
		switch (r->call) {
		case 0: rc = PAPI_start_counters(r->use_null ? NULL : ev, r->len); break;
		case 1: rc = PAPI_read_counters(vals, r->len); break;
		case 2: rc = PAPI_accum_counters(vals, r->len); break;
		default: rc = PAPI_stop_counters(vals, r->len); break;
		}
		TH_EQ(rc, r->expect);
	}
	th_at(0);
}

static void read_resets(void)
{
	long long c0, c1, cr, f0;
	struct rusage r0, r1;

	th_clock_begin();
	f0 = th_thread_faults();
	TH_EQ(PAPI_read_counters(v, 2), PAPI_OK); /* zero point */
	c0 = th_thread_cpu_ns();
	hlt_touch_pages(NPAGES);
	th_spin_cpu_ns(SPIN_NS);
	c1 = th_thread_cpu_ns();
	getrusage(RUSAGE_THREAD, &r0); /* before the reset inside the next read */
	cr = th_thread_cpu_ns();
	TH_EQ(PAPI_read_counters(v, 2), PAPI_OK);
	TH_FAULTS_IN(v[0], NPAGES, th_thread_faults() - f0);
	TH_NEAR_CLOCK(v[1], c1 - c0);
	/* read reset the counters: right after, nearly nothing: at most the
	 * faults the kernel accounts to this thread over a window that holds
	 * the reset and the read (a sanitizer runtime's own shadow faults are
	 * real ones), and a couple more */
	TH_EQ(PAPI_read_counters(v, 2), PAPI_OK);
	c1 = th_thread_cpu_ns();
	getrusage(RUSAGE_THREAD, &r1);
	TH_CHECK(v[0] >= 0 && v[0] <= r1.ru_minflt - r0.ru_minflt + 2);
	/* and no more CPU time than the thread's own clock says of a window
	 * that holds the reset and the read (cr: before the resetting read) */
	TH_CHECK(v[1] >= 0 && v[1] <= c1 - cr + 20000);
	TH_CHECK(v[1] < SPIN_NS / 10);   /* the spin before the reset is gone */
}

static void accum_adds(void)
{
	long long acc[2] = { 1000, 5 };
	long long f0 = th_thread_faults(), f1;

	TH_EQ(PAPI_read_counters(v, 2), PAPI_OK);
	hlt_touch_pages(NPAGES / 2);
	TH_EQ(PAPI_accum_counters(acc, 2), PAPI_OK);
	TH_FAULTS_IN(acc[0] - 1000, NPAGES / 2, th_thread_faults() - f0);
	TH_CHECK(acc[1] > 5);
	hlt_touch_pages(NPAGES);
	f1 = th_thread_faults(); /* before the reset inside the next accum */
	TH_EQ(PAPI_accum_counters(acc, 2), PAPI_OK);
	/* both windows: the accumulated sum */
	TH_FAULTS_IN(acc[0] - 1000, NPAGES / 2 + NPAGES, th_thread_faults() - f0);
	f_last = th_thread_faults();
	/* accum reset too: a read now sees only what followed */
	TH_EQ(PAPI_read_counters(v, 2), PAPI_OK);
	TH_CHECK(v[0] >= 0 && v[0] <= th_thread_faults() - f1 + 2);
}

static void stop_returns(void)
{
	/* counting since the last read of accum_adds (f_last: before it) */
	hlt_touch_pages(NPAGES / 4);
	v[2] = v[3] = -7; /* past the events: must stay untouched */
	TH_EQ(PAPI_stop_counters(v, 4), PAPI_OK);
	TH_FAULTS_IN(v[0], NPAGES / 4, th_thread_faults() - f_last);
	TH_EQ(v[2], -7);
	TH_EQ(PAPI_stop_counters(v, 2), PAPI_ENOTRUN);
	TH_EQ(PAPI_read_counters(v, 2), PAPI_ENOTRUN);
}

static void bad_event_leaves_nothing(void)
{
	int bad[2] = { ev[0], PAPI_NULL };

	/* an unknown code fails the start and leaves the thread stopped */
	TH_CHECK(PAPI_start_counters(bad, 2) < 0);
	TH_EQ(PAPI_read_counters(v, 2), PAPI_ENOTRUN);
	if (PAPI_query_event(PAPI_TOT_CYC) != PAPI_OK) {
		int hw[2] = { ev[0], PAPI_TOT_CYC };

		TH_EQ(PAPI_start_counters(hw, 2), PAPI_ENOEVNT);
		TH_EQ(PAPI_read_counters(v, 2), PAPI_ENOTRUN);
	}
	TH_EQ(PAPI_start_counters(ev, 2), PAPI_OK);
	TH_EQ(PAPI_stop_counters(v, 2), PAPI_OK);
}

int main(void)
{
	int n;

	TH_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);
	n = PAPI_num_counters(); /* initialises the library */
	TH_CHECK(n >= 0);
	TH_CHECK(PAPI_is_initialized() != PAPI_NOT_INITED);
	TH_EQ(n, PAPI_num_hwctrs());
	codes();
	error_table(0);
	TH_EQ(PAPI_start_counters(ev, 2), PAPI_OK);
	error_table(1);
	read_resets();
	accum_adds();
	stop_returns();
	bad_event_leaves_nothing();
	return th_done();
}
