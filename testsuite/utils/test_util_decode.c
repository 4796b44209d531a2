/*
 * test_util_decode.c - papi_decode prints the CSV header and one line per
 * preset (all by default, the available ones with -a), each line naming a
 * preset the library knows.  argv[1]: path of papi_decode.
 */
#define _POSIX_C_SOURCE 200809L
#include "util_run.h"
#include "tharness.h"

#include "papi.h"

#define DECODE_HEADER "name,derived,postfix,short_descr,long_descr,note,[native,...]"

static void api_counts(int *all, int *avail)
{
	int code = PAPI_PRESET_MASK;

	*all = *avail = 0;
	if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK)
		return;
	do {
		(*all)++;
		*avail += PAPI_query_event(code) == PAPI_OK;
	} while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
}

static int count_commas(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == ',';
	return n;
}

/* Check the header, then each row's preset; returns the number of rows. */
static int check_csv(const char *text, int want_avail)
{
	const char *cur = text;
	char line[8192], name[PAPI_MAX_STR_LEN];
	int rows = 0, code;

	TH_CHECK(ut_line(&cur, line, sizeof(line)));
	TH_CHECK(strcmp(line, DECODE_HEADER) == 0);
	while (ut_line(&cur, line, sizeof(line))) {
		size_t len = strcspn(line, ",");

		rows++;
		snprintf(name, sizeof(name), "%.*s", (int)len, line);
		TH_EQ(PAPI_event_name_to_code(name, &code), PAPI_OK);
		TH_CHECK(IS_PRESET(code));
		if (want_avail)
			TH_EQ(PAPI_query_event(code), PAPI_OK);
		/* name,derived,postfix,short,long,note: at least 5 commas; the
		 * derived kind is set exactly when the preset is available. */
		TH_CHECK(count_commas(line) >= 5);
		TH_EQ(strncmp(line + len, ",NOT_DERIVED,", 13) == 0 || strncmp(line + len, ",DERIVED", 8) == 0,
		      PAPI_query_event(code) == PAPI_OK);
	}
	return rows;
}

int main(int argc, char **argv)
{
	struct ut_out o;
	int all, avail;

	if (argc < 2)
		TH_FATAL("usage: test_util_decode PATH_TO_papi_decode");
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init failed");
	api_counts(&all, &avail);
	TH_CHECK(all > 0);

	ut_run(&o, UT_STDOUT, "%s -a", argv[1]);
	TH_EQ(o.status, 0);
	TH_EQ(check_csv(o.text, 1), avail);
	ut_free(&o);

	ut_run(&o, UT_STDOUT, "%s", argv[1]);
	TH_EQ(o.status, 0);
	TH_EQ(check_csv(o.text, 0), all);
	if (th_failures)
		ut_dump(&o);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s -q", argv[1]);
	TH_CHECK(o.status > 0);
	ut_free(&o);
	PAPI_shutdown();
	return th_done();
}
