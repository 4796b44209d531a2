/*
 * papi_clockres - resolution and cost of the PAPI real and virtual timers.
 *
 *   papi_clockres [-n CALLS] [-h]
 *
 * Each timer is called back to back CALLS times.  Its resolution is the
 * smallest nonzero step seen between two consecutive calls; the mean step
 * is the timer's own view of one call; the cost is one call's wall time in
 * nanoseconds, measured with PAPI_get_real_nsec around the loop.
 */
#include "util_common.h"

#include <string.h>

#define CLOCKRES_DEFAULT_CALLS 1000000L

struct timer_def {
	const char *name;
	const char *unit;
	long long (*fn)(void);
};

static const struct timer_def timers[] = {
	{"PAPI_get_real_cyc", "cycles", PAPI_get_real_cyc},
	{"PAPI_get_real_usec", "usec", PAPI_get_real_usec},
	{"PAPI_get_real_nsec", "nsec", PAPI_get_real_nsec},
	{"PAPI_get_virt_cyc", "cycles", PAPI_get_virt_cyc},
	{"PAPI_get_virt_usec", "usec", PAPI_get_virt_usec},
	{"PAPI_get_virt_nsec", "nsec", PAPI_get_virt_nsec},
};

struct timer_result {
	long long resolution; /* smallest nonzero step; 0 when none seen */
	double mean_step;     /* (last - first) / calls */
	double cost_ns;       /* wall time per call */
	long changes;         /* steps that were nonzero */
	long backwards;       /* steps that were negative */
};

static void measure(const struct timer_def *t, long calls, struct timer_result *r)
{
	long long start_ns, first, prev, cur;

	memset(r, 0, sizeof(*r));
	start_ns = PAPI_get_real_nsec();
	first = prev = t->fn();
	for (long i = 0; i < calls; i++) {
		long long d;

		cur = t->fn();
		d = cur - prev;
		prev = cur;
		if (d < 0)
			r->backwards++;
		if (d <= 0)
			continue;
		r->changes++;
		if (r->resolution == 0 || d < r->resolution)
			r->resolution = d;
	}
	r->cost_ns = (double)(PAPI_get_real_nsec() - start_ns) / (double)calls;
	r->mean_step = (double)(prev - first) / (double)calls;
}

static int report(long calls)
{
	int bad = 0;

	printf("%-20s %-7s %12s %12s %14s %10s\n", "Timer", "Unit", "Resolution", "Mean step",
	       "Cost/call (ns)", "Changes");
	for (size_t i = 0; i < sizeof(timers) / sizeof(timers[0]); i++) {
		struct timer_result r;

		measure(&timers[i], calls, &r);
		printf("%-20s %-7s %12lld %12.3f %14.2f %10ld\n", timers[i].name, timers[i].unit,
		       r.resolution, r.mean_step, r.cost_ns, r.changes);
		if (r.backwards)
			printf("  warning: %s went backwards %ld times\n", timers[i].name, r.backwards);
		if (r.resolution == 0) {
			printf("  warning: %s did not change in %ld calls\n", timers[i].name, calls);
			bad = 1;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	const char *prog = "papi_clockres";
	long calls = CLOCKRES_DEFAULT_CALLS;
	int bad;

	for (int i = 1; i < argc; i++) {
		if (util_opt_is(argv[i], "-h", "--help")) {
			printf("Usage: %s [-n CALLS]\n"
			       "Measure resolution and cost of the PAPI real and virtual timers.\n\n"
			       "  -n CALLS   back-to-back calls per timer (default %ld)\n"
			       "  -h         this text\n", prog, CLOCKRES_DEFAULT_CALLS);
			return 0;
		} else if (strncmp(argv[i], "-n", 2) == 0) {
			const char *v = util_opt_value(prog, argc, argv, &i, "-n", NULL);

			if (!v || (calls = util_parse_count(prog, "number of calls", v, 1000000000L)) < 0)
				return 1;
		} else {
			return util_bad_option(prog, argv[i]);
		}
	}
	util_init(prog);
	printf("Resolution and cost of the PAPI timers (%ld calls each).\n", calls);
	util_rule(stdout, '-');
	bad = report(calls);
	util_rule(stdout, '-');
	PAPI_shutdown();
	return bad ? util_error(prog, "some timers never changed") : 0;
}
