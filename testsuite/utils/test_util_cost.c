/*
 * test_util_cost.c - papi_cost runs with whatever the machine can count
 * (a software event when PAPI_TOT_CYC is unavailable, and says so) and
 * prints one row per measured call with positive costs.
 * argv[1]: path of papi_cost.
 */
#define _POSIX_C_SOURCE 200809L
#include "util_run.h"
#include "tharness.h"

#include "papi.h"

static const char *const calls[] = {
	"PAPI_start/stop", "PAPI_read", "PAPI_read_ts", "PAPI_accum", "PAPI_reset",
};

/* Row "NAME min max mean sd mean_ns": checks min <= mean <= max, mean > 0. */
static void check_row(const char *text, const char *name)
{
	char key[64];
	const char *p;
	long long mn, mx;
	double mean, sd, ns;

	snprintf(key, sizeof(key), "\n%s ", name);
	p = strstr(text, key);
	TH_CHECK(p != NULL);
	if (!p)
		return;
	TH_EQ(sscanf(p + strlen(key), "%lld %lld %lf %lf %lf", &mn, &mx, &mean, &sd, &ns), 5);
	TH_CHECK(mn > 0);
	TH_CHECK(mn <= mean && mean <= mx);
	TH_CHECK(ns > 0);
}

int main(int argc, char **argv)
{
	struct ut_out o;

	if (argc < 2)
		TH_FATAL("usage: test_util_cost PATH_TO_papi_cost");
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init failed");

	ut_run(&o, UT_MERGE, "%s -t 2000", argv[1]);
	TH_EQ(o.status, 0);
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		check_row(o.text, calls[i]);
	if (PAPI_query_event(PAPI_TOT_CYC) != PAPI_OK)
		TH_CHECK(strstr(o.text, "Using the software event perf::") != NULL);
	if (th_failures)
		ut_dump(&o);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s -t 1000 -d -b 10 -s -p", argv[1]);
	TH_EQ(o.status, 0);
	TH_CHECK(strstr(o.text, "percentiles") != NULL);
	TH_CHECK(strstr(o.text, "(rest)") != NULL);
	TH_CHECK(strstr(o.text, "std-dev: 1:") != NULL);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s -t 0", argv[1]);
	TH_CHECK(o.status > 0);
	TH_CHECK(strstr(o.text, "threshold") != NULL);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s -b abc", argv[1]);
	TH_CHECK(o.status > 0);
	ut_free(&o);
	PAPI_shutdown();
	return th_done();
}
