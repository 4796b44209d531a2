/*
 * test_util_avail.c - papi_avail -a lists exactly the presets for which
 * PAPI_query_event succeeds (computed here through the API), the full list
 * has one row per preset with the right Avail column, and when nothing is
 * available the output says why; a note shared by many presets is printed
 * once.  argv[1]: path of papi_avail.
 */
#define _POSIX_C_SOURCE 200809L
#include "util_run.h"
#include "tharness.h"

#include <ctype.h>
#include "papi.h"

#define MAX_ROWS 256

struct rowset {
	int n;
	char name[MAX_ROWS][64];
	int avail[MAX_ROWS]; /* "Yes" in the Avail column */
};

/* Rows look like "PAPI_XXX  0x80000000  Yes   No   description". */
static void parse_rows(const char *text, struct rowset *r)
{
	const char *cur = text;
	char line[4096], name[64], code[32], av[8];

	r->n = 0;
	while (ut_line(&cur, line, sizeof(line)) && r->n < MAX_ROWS) {
		if (strncmp(line, "PAPI_", 5) != 0 || !isupper((unsigned char)line[5]))
			continue;
		if (sscanf(line, "%63s %31s %7s", name, code, av) != 3 || strncmp(code, "0x", 2))
			continue;
		snprintf(r->name[r->n], sizeof(r->name[0]), "%s", name);
		r->avail[r->n++] = strcmp(av, "Yes") == 0;
	}
}

static int row_index(const struct rowset *r, const char *name)
{
	for (int i = 0; i < r->n; i++)
		if (strcmp(r->name[i], name) == 0)
			return i;
	return -1;
}

/* Truth from the API: every preset and whether it is available. */
static void api_presets(struct rowset *r)
{
	int code = PAPI_PRESET_MASK;

	r->n = 0;
	if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK)
		return;
	do {
		PAPI_event_code_to_name(code, r->name[r->n]);
		r->avail[r->n++] = PAPI_query_event(code) == PAPI_OK;
	} while (r->n < MAX_ROWS && PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
}

static void check_reason(const struct ut_out *o)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(0);

	TH_CHECK(strstr(o->text, "No preset events") != NULL);
	TH_CHECK(ci != NULL);
	if (ci && !ci->disabled) {
		/* Tally's convention: an active component that cannot give
		 * presets says why, and papi_avail repeats it. */
		TH_CHECK(ci->disabled_reason[0] != '\0');
		TH_CHECK(strstr(o->text, ci->disabled_reason) != NULL);
	}
}

static void check_avail_only(const char *exe, const struct rowset *truth)
{
	struct ut_out o;
	struct rowset got;
	int navail = 0;

	ut_run(&o, UT_STDOUT, "%s -a", exe);
	TH_EQ(o.status, 0);
	parse_rows(o.text, &got);
	for (int i = 0; i < truth->n; i++) {
		if (!truth->avail[i])
			continue;
		navail++;
		TH_CHECK(row_index(&got, truth->name[i]) >= 0);
		if (row_index(&got, truth->name[i]) < 0)
			fprintf(stderr, "  available preset %s not listed\n", truth->name[i]);
	}
	TH_EQ(got.n, navail);
	printf("available presets: %d\n", navail);
	if (navail == 0)
		check_reason(&o);
	if (th_failures)
		ut_dump(&o);
	ut_free(&o);
}

static void check_all(const char *exe, const struct rowset *truth)
{
	struct ut_out o;
	struct rowset got;

	ut_run(&o, UT_STDOUT, "%s", exe);
	TH_EQ(o.status, 0);
	parse_rows(o.text, &got);
	TH_EQ(got.n, truth->n);
	for (int i = 0; i < truth->n; i++) {
		int j = row_index(&got, truth->name[i]);

		TH_CHECK(j >= 0);
		if (j >= 0)
			TH_EQ(got.avail[j], truth->avail[i]);
	}
	ut_free(&o);
}

static int count_of(const char *text, const char *needle)
{
	int k = 0;

	for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
		k++;
	return k;
}

/* The table gives each distinct note once (in its Notes list), however
 * many presets share it; returns how many presets carry a note. */
static int check_notes_once(const char *exe)
{
	int code = PAPI_PRESET_MASK, noted = 0;
	PAPI_event_info_t info;
	struct ut_out o;

	ut_run(&o, UT_STDOUT, "%s", exe);
	TH_EQ(o.status, 0);
	if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) == PAPI_OK) {
		do {
			memset(&info, 0, sizeof(info));
			if (PAPI_get_event_info(code, &info) != PAPI_OK || !info.note[0])
				continue;
			noted++;
			TH_EQ(count_of(o.text, info.note), 1);
		} while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
	}
	if (noted)
		TH_CHECK(strstr(o.text, "(note 1)") != NULL);
	if (th_failures)
		ut_dump(&o);
	ut_free(&o);
	return noted;
}

static void check_event_option(const char *exe)
{
	struct ut_out o;
	PAPI_event_info_t info;

	memset(&info, 0, sizeof(info));
	TH_EQ(PAPI_get_event_info(PAPI_TOT_CYC, &info), PAPI_OK);
	ut_run(&o, UT_MERGE, "%s -e PAPI_TOT_CYC", exe);
	TH_EQ(o.status, 0);
	TH_CHECK(strstr(o.text, "PAPI_TOT_CYC") != NULL);
	if (PAPI_query_event(PAPI_TOT_CYC) != PAPI_OK) {
		/* a mapping that cannot count here is shown by name, code 0 */
		TH_EQ(info.count, 0u);
		for (unsigned t = 0; t < PAPI_MAX_INFO_TERMS && info.name[t][0]; t++) {
			TH_EQ(info.code[t], 0u);
			TH_CHECK(strstr(o.text, info.name[t]) != NULL);
		}
		TH_CHECK(info.note[0] != '\0');
		TH_CHECK(strstr(o.text, info.note) != NULL);
	}
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s -e perf::TASK-CLOCK", exe);
	TH_EQ(o.status, 0);
	TH_CHECK(strstr(o.text, "perf::TASK-CLOCK") != NULL);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s -e NOT_AN_EVENT_XYZ", exe);
	TH_CHECK(o.status > 0);
	TH_CHECK(strstr(o.text, "NOT_AN_EVENT_XYZ") != NULL);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s -d", exe);
	TH_EQ(o.status, 0);
	TH_CHECK(strstr(o.text, "Event name") != NULL);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s --bogus", exe);
	TH_CHECK(o.status > 0);
	TH_CHECK(strstr(o.text, "--bogus") != NULL);
	ut_free(&o);
}

int main(int argc, char **argv)
{
	static struct rowset truth;

	if (argc < 2)
		TH_FATAL("usage: test_util_avail PATH_TO_papi_avail");
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init failed");
	api_presets(&truth);
	TH_CHECK(truth.n > 0);
	check_avail_only(argv[1], &truth);
	check_all(argv[1], &truth);
	printf("presets with a note: %d\n", check_notes_once(argv[1]));
	check_event_option(argv[1]);
	PAPI_shutdown();
	return th_done();
}
