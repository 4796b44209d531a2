/*
 * test_util_command_line.c - papi_command_line counts software events over
 * its workload, reports bad events by name and keeps counting the others.
 * argv[1]: path of papi_command_line.
 */
#define _POSIX_C_SOURCE 200809L
#include "util_run.h"
#include "tharness.h"
#include "th_sys.h"

#include <time.h>
#include "papi.h"

/* Value printed as "NAME : value" (base 0: decimal or 0x hex); -1 if absent. */
static long long count_of(const char *text, const char *name)
{
	char key[256];
	const char *p;

	snprintf(key, sizeof(key), "\n%s : ", name);
	p = strstr(text, key);
	return p ? strtoll(p + strlen(key), NULL, 0) : -1;
}

static void check_two_events(const char *exe)
{
	struct ut_out o;
	long long t0 = (long long)th_now_ns(), elapsed, task, faults;

	ut_run(&o, UT_MERGE, "%s perf::TASK-CLOCK perf::PAGE-FAULTS", exe);
	elapsed = (long long)th_now_ns() - t0;
	task = count_of(o.text, "perf::TASK-CLOCK");
	faults = count_of(o.text, "perf::PAGE-FAULTS");
	TH_EQ(o.status, 0);
	/* TASK-CLOCK is CPU time in ns: positive, and no more than the wall
	 * time the whole child process took. */
	TH_CHECK(task > 0);
	TH_CHECK(task <= elapsed);
	/* The workload writes 1024 fresh pages. */
	TH_CHECK(faults > 0);
	if (o.status != 0 || task <= 0 || faults <= 0)
		ut_dump(&o);
	ut_free(&o);
}

static void check_bad_event(const char *exe)
{
	struct ut_out o;

	ut_run(&o, UT_MERGE, "%s perf::TASK-CLOCK bogus::NO_SUCH_EVENT", exe);
	TH_CHECK(o.status > 0);
	TH_CHECK(strstr(o.text, "bogus::NO_SUCH_EVENT") != NULL);
	TH_CHECK(strstr(o.text, PAPI_strerror(PAPI_ENOEVNT)) != NULL);
	/* The good event is still counted. */
	TH_CHECK(count_of(o.text, "perf::TASK-CLOCK") > 0);
	if (o.status <= 0)
		ut_dump(&o);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s bogus::ONLY", exe);
	TH_CHECK(o.status > 0);
	TH_CHECK(strstr(o.text, "bogus::ONLY") != NULL);
	ut_free(&o);
}

static void check_options(const char *exe)
{
	struct ut_out o;

	ut_run(&o, UT_MERGE, "%s -x perf::TASK-CLOCK", exe);
	TH_EQ(o.status, 0);
	TH_CHECK(strstr(o.text, "perf::TASK-CLOCK : 0x") != NULL);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s -u perf::TASK-CLOCK", exe);
	TH_EQ(o.status, 0);
	TH_CHECK(count_of(o.text, "perf::TASK-CLOCK") > 0);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s", exe);
	TH_CHECK(o.status > 0);
	TH_CHECK(strstr(o.text, "Usage") != NULL);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s -Q perf::TASK-CLOCK", exe);
	TH_CHECK(o.status > 0);
	TH_CHECK(strstr(o.text, "-Q") != NULL);
	ut_free(&o);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		TH_FATAL("usage: test_util_command_line PATH_TO_papi_command_line");
	th_need_sw_perf();
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init failed");
	if (PAPI_query_named_event("perf::TASK-CLOCK") != PAPI_OK)
		TH_FATAL("perf::TASK-CLOCK is not countable though the kernel counts it");
	check_two_events(argv[1]);
	check_bad_event(argv[1]);
	check_options(argv[1]);
	PAPI_shutdown();
	return th_done();
}
