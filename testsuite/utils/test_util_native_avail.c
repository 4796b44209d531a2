/*
 * test_util_native_avail.c - papi_native_avail lists perf::TASK-CLOCK, and
 * its event total equals what PAPI_enum_cmp_event enumeration gives over
 * the active components; -i filters; -e shows one event.
 * argv[1]: path of papi_native_avail.
 */
#define _POSIX_C_SOURCE 200809L
#include "util_run.h"
#include "tharness.h"

#include "papi.h"

/* Events of all active components; only names containing `sub` if set. */
static int api_count(const char *sub)
{
	int n = 0;

	for (int c = 0; c < PAPI_num_components(); c++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(c);
		int code = PAPI_NATIVE_MASK;
		char name[PAPI_HUGE_STR_LEN];

		if (!ci || ci->disabled || PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, c) != PAPI_OK)
			continue;
		do {
			if (PAPI_event_code_to_name(code, name) == PAPI_OK && (!sub || strstr(name, sub)))
				n++;
		} while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, c) == PAPI_OK);
	}
	return n;
}

static int reported_total(const char *text)
{
	const char *p = strstr(text, "Total events reported: ");

	return p ? atoi(p + strlen("Total events reported: ")) : -1;
}

static int has_line(const char *text, const char *line)
{
	const char *cur = text;
	char buf[4096];

	while (ut_line(&cur, buf, sizeof(buf)))
		if (strcmp(buf, line) == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct ut_out o;
	const char *p;
	int total;

	if (argc < 2)
		TH_FATAL("usage: test_util_native_avail PATH_TO_papi_native_avail");
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init failed");
	total = api_count(NULL);
	TH_CHECK(total > 0);

	ut_run(&o, UT_STDOUT, "%s", argv[1]);
	TH_EQ(o.status, 0);
	TH_CHECK(has_line(o.text, "perf::TASK-CLOCK"));
	TH_EQ(reported_total(o.text), total);
	if (th_failures)
		ut_dump(&o);
	ut_free(&o);

	ut_run(&o, UT_STDOUT, "%s --noumasks -i CLOCK", argv[1]);
	TH_EQ(o.status, 0);
	TH_EQ(reported_total(o.text), api_count("CLOCK"));
	TH_CHECK(strstr(o.text, "Qualifiers:") == NULL);
	ut_free(&o);

	ut_run(&o, UT_STDOUT, "%s -x CLOCK", argv[1]);
	TH_EQ(o.status, 0);
	TH_EQ(reported_total(o.text), total - api_count("CLOCK"));
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s -e perf::TASK-CLOCK", argv[1]);
	TH_EQ(o.status, 0);
	TH_CHECK(strstr(o.text, "perf::TASK-CLOCK") != NULL);
	p = strstr(o.text, "Can be counted");
	TH_CHECK(p != NULL && strncmp(p + strcspn(p, ":"), ": yes", 5) == 0);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s -e perf::NO_SUCH_THING", argv[1]);
	TH_CHECK(o.status > 0);
	TH_CHECK(strstr(o.text, "perf::NO_SUCH_THING") != NULL);
	ut_free(&o);
	PAPI_shutdown();
	return th_done();
}
