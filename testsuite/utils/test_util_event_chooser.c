/*
 * test_util_event_chooser.c - with perf::TASK-CLOCK in the set,
 * papi_event_chooser lists perf::PAGE-FAULTS as compatible (checked here
 * through the API too) and never the event already in the set; bad events
 * are named.  argv[1]: path of papi_event_chooser.
 */
#define _POSIX_C_SOURCE 200809L
#include "util_run.h"
#include "tharness.h"
#include "th_sys.h"

#include "papi.h"

/* 1 when a listed line starts (after indentation) with the name + space. */
static int listed(const char *text, const char *name)
{
	const char *cur = text;
	char line[4096];
	size_t len = strlen(name);

	while (ut_line(&cur, line, sizeof(line))) {
		const char *p = line + strspn(line, " ");

		if (p != line && strncmp(p, name, len) == 0 && (p[len] == ' ' || p[len] == '\0'))
			return 1;
	}
	return 0;
}

static void check_api_truth(void)
{
	int set = PAPI_NULL;

	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_add_named_event(set, "perf::TASK-CLOCK"), PAPI_OK);
	TH_EQ(PAPI_add_named_event(set, "perf::PAGE-FAULTS"), PAPI_OK);
	PAPI_cleanup_eventset(set);
	PAPI_destroy_eventset(&set);
}

int main(int argc, char **argv)
{
	struct ut_out o;

	if (argc < 2)
		TH_FATAL("usage: test_util_event_chooser PATH_TO_papi_event_chooser");
	th_need_sw_perf();
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init failed");
	if (PAPI_query_named_event("perf::TASK-CLOCK") != PAPI_OK)
		TH_FATAL("perf::TASK-CLOCK is not countable though the kernel counts it");
	check_api_truth();

	ut_run(&o, UT_STDOUT, "%s NATIVE perf::TASK-CLOCK", argv[1]);
	TH_EQ(o.status, 0);
	TH_CHECK(listed(o.text, "perf::PAGE-FAULTS"));
	TH_CHECK(!listed(o.text, "perf::TASK-CLOCK"));
	TH_CHECK(strstr(o.text, "Compatible preset events") == NULL);
	if (th_failures)
		ut_dump(&o);
	ut_free(&o);

	ut_run(&o, UT_STDOUT, "%s perf::TASK-CLOCK", argv[1]);
	TH_EQ(o.status, 0);
	TH_CHECK(listed(o.text, "perf::PAGE-FAULTS"));
	TH_CHECK(strstr(o.text, "Compatible preset events") != NULL);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s NATIVE bogus::EVT", argv[1]);
	TH_CHECK(o.status > 0);
	TH_CHECK(strstr(o.text, "bogus::EVT") != NULL);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s PRESET", argv[1]);
	TH_CHECK(o.status > 0);
	ut_free(&o);
	PAPI_shutdown();
	return th_done();
}
