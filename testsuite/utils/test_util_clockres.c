/*
 * test_util_clockres.c - papi_clockres reports all six PAPI timers with a
 * nonzero resolution and a positive per-call cost.
 * argv[1]: path of papi_clockres.
 */
#define _POSIX_C_SOURCE 200809L
#include "util_run.h"
#include "tharness.h"

static const char *const timers[] = {
	"PAPI_get_real_cyc", "PAPI_get_real_usec", "PAPI_get_real_nsec",
	"PAPI_get_virt_cyc", "PAPI_get_virt_usec", "PAPI_get_virt_nsec",
};

int main(int argc, char **argv)
{
	struct ut_out o;

	if (argc < 2)
		TH_FATAL("usage: test_util_clockres PATH_TO_papi_clockres");
	ut_run(&o, UT_MERGE, "%s -n 200000", argv[1]);
	TH_EQ(o.status, 0);
	for (size_t i = 0; i < sizeof(timers) / sizeof(timers[0]); i++) {
		char key[64], unit[16];
		const char *p;
		long long res = 0;
		double step = 0, cost = 0;

		snprintf(key, sizeof(key), "\n%s ", timers[i]);
		p = strstr(o.text, key);
		TH_CHECK(p != NULL);
		if (!p)
			continue;
		TH_EQ(sscanf(p + strlen(key), "%15s %lld %lf %lf", unit, &res, &step, &cost), 4);
		TH_CHECK(res > 0);
		TH_CHECK(step >= 0);
		TH_CHECK(cost > 0);
	}
	if (th_failures)
		ut_dump(&o);
	ut_free(&o);

	ut_run(&o, UT_MERGE, "%s -n nope", argv[1]);
	TH_CHECK(o.status > 0);
	TH_CHECK(strstr(o.text, "nope") != NULL);
	ut_free(&o);
	return th_done();
}
