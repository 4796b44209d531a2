/*
 * test_util_component_avail.c - papi_component_avail lists perf_event among
 * the active components, with its native event count and the reason
 * hardware counters are unavailable (PAPI_get_component_info()->
 * disabled_reason) whenever that is set.  argv[1]: papi_component_avail.
 */
#define _POSIX_C_SOURCE 200809L
#include "util_run.h"
#include "tharness.h"

#include "papi.h"

static int api_native_count(int cidx)
{
	int code = PAPI_NATIVE_MASK, n = 0;

	if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK)
		return 0;
	do
		n++;
	while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
	return n;
}

static void check_component(const char *active, int cidx)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
	char key[256];
	const char *p;

	if (!ci || ci->disabled)
		return;
	snprintf(key, sizeof(key), "Name:   %s", ci->name);
	p = strstr(active, key);
	TH_CHECK(p != NULL);
	if (!p)
		return;
	p = strstr(p, "Native: ");
	TH_CHECK(p != NULL);
	if (p)
		TH_EQ(atoi(p + 8), api_native_count(cidx));
	if (ci->disabled_reason[0])
		TH_CHECK(strstr(active, ci->disabled_reason) != NULL);
}

int main(int argc, char **argv)
{
	const PAPI_component_info_t *ci;
	struct ut_out o;
	char *active, *disabled;

	if (argc < 2)
		TH_FATAL("usage: test_util_component_avail PATH_TO_papi_component_avail");
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init failed");
	ci = PAPI_get_component_info(0);
	TH_CHECK(ci != NULL && strcmp(ci->name, "perf_event") == 0);
	TH_CHECK(ci != NULL && ci->disabled == PAPI_OK);
	/* No hardware presets here means the reason must be given. */
	if (ci && PAPI_query_event(PAPI_TOT_CYC) != PAPI_OK)
		TH_CHECK(ci->disabled_reason[0] != '\0');

	ut_run(&o, UT_MERGE, "%s", argv[1]);
	TH_EQ(o.status, 0);
	active = strstr(o.text, "Active components:");
	disabled = strstr(o.text, "Disabled components:");
	TH_CHECK(active != NULL && disabled != NULL && active < disabled);
	if (active && disabled) {
		*disabled = '\0'; /* active section only */
		TH_CHECK(strstr(active, "perf_event") != NULL);
		for (int c = 0; c < PAPI_num_components(); c++)
			check_component(active, c);
	}
	if (th_failures)
		ut_dump(&o);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s -d", argv[1]);
	TH_EQ(o.status, 0);
	TH_CHECK(strstr(o.text, "Domains:") != NULL);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s -z", argv[1]);
	TH_CHECK(o.status > 0);
	TH_CHECK(strstr(o.text, "-z") != NULL);
	ut_free(&o);
	PAPI_shutdown();
	return th_done();
}
