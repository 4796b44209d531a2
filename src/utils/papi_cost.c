/*
 * papi_cost - what the basic PAPI calls cost on this machine.
 *
 *   papi_cost [-b BINS] [-d] [-p] [-s] [-t THRESHOLD] [-h]
 *
 * Times THRESHOLD calls each of PAPI_start+PAPI_stop, PAPI_read,
 * PAPI_read_ts, PAPI_accum and PAPI_reset on an event set holding one
 * event, with PAPI_get_real_cyc around every call.  The event is
 * PAPI_TOT_CYC when the machine can count it, else a software event
 * (perf::TASK-CLOCK), so the tool works without hardware counters.
 */
#include "util_common.h"

#include <stdlib.h>
#include <string.h>

#define COST_DEFAULT_ITERS 100000L
#define COST_DEFAULT_BINS 100
#define COST_BAR_WIDTH 50
#define COST_MAX_SD 10

struct cost_opts {
	long iters;
	int bins;
	int hist;   /* -d */
	int pct;    /* -p */
	int sdcount; /* -s */
};

struct cost_ctx {
	int set;
	long long vals[4];
	double ns_per_cyc;
};

typedef int (*cost_fn)(struct cost_ctx *c);

static int do_start_stop(struct cost_ctx *c)
{
	int rc = PAPI_start(c->set);

	return rc != PAPI_OK ? rc : PAPI_stop(c->set, c->vals);
}

static int do_read(struct cost_ctx *c) { return PAPI_read(c->set, c->vals); }
static int do_accum(struct cost_ctx *c) { return PAPI_accum(c->set, c->vals); }
static int do_reset(struct cost_ctx *c) { return PAPI_reset(c->set); }

static int do_read_ts(struct cost_ctx *c)
{
	long long ts;

	return PAPI_read_ts(c->set, c->vals, &ts);
}

static const struct {
	const char *name;
	cost_fn fn;
	int running; /* the set must be running for this call */
} cases[] = {
	{"PAPI_start/stop", do_start_stop, 0},
	{"PAPI_read", do_read, 1},
	{"PAPI_read_ts", do_read_ts, 1},
	{"PAPI_accum", do_accum, 1},
	{"PAPI_reset", do_reset, 1},
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [options]\n"
		"Measure the cost of PAPI_start/stop, PAPI_read, PAPI_read_ts, PAPI_accum\n"
		"and PAPI_reset in cycles (PAPI_get_real_cyc) and nanoseconds.\n\n"
		"  -b BINS       bins of the -d histogram (default %d)\n"
		"  -d            show the distribution of costs as a histogram\n"
		"  -p            show the 25th, 50th and 75th percentiles\n"
		"  -s            show how many samples lie 1..%d standard deviations above the mean\n"
		"  -t THRESHOLD  iterations per measured call (default %ld)\n"
		"  -h            this text\n",
		prog, COST_DEFAULT_BINS, COST_MAX_SD, COST_DEFAULT_ITERS);
}

/* 0: go on, 1: error, 2: help printed. */
static int parse_args(const char *prog, int argc, char **argv, struct cost_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;

		if (util_opt_is(a, "-d", NULL)) {
			o->hist = 1;
		} else if (util_opt_is(a, "-p", NULL)) {
			o->pct = 1;
		} else if (util_opt_is(a, "-s", NULL)) {
			o->sdcount = 1;
		} else if (util_opt_is(a, "-h", "--help")) {
			usage(stdout, prog);
			return 2;
		} else if (strncmp(a, "-b", 2) == 0) {
			v = util_opt_value(prog, argc, argv, &i, "-b", NULL);
			if (!v || (o->bins = (int)util_parse_count(prog, "number of bins", v, 10000)) < 0)
				return 1;
		} else if (strncmp(a, "-t", 2) == 0) {
			v = util_opt_value(prog, argc, argv, &i, "-t", NULL);
			if (!v || (o->iters = util_parse_count(prog, "threshold", v, 100000000L)) < 0)
				return 1;
		} else {
			util_bad_option(prog, a);
			return 1;
		}
	}
	return 0;
}

/* Add PAPI_TOT_CYC, or fall back to a software event; says which. */
static int choose_event(const char *prog, int set)
{
	static const char *const fallbacks[] = {"perf::TASK-CLOCK", "perf::CPU-CLOCK"};
	PAPI_event_info_t info;

	if (PAPI_query_event(PAPI_TOT_CYC) == PAPI_OK && PAPI_add_event(set, PAPI_TOT_CYC) == PAPI_OK) {
		printf("Event set holds PAPI_TOT_CYC.\n");
		return PAPI_OK;
	}
	memset(&info, 0, sizeof(info));
	PAPI_get_event_info(PAPI_TOT_CYC, &info);
	printf("PAPI_TOT_CYC cannot be counted here%s%s\n", info.note[0] ? ": " : ".", info.note);
	for (size_t i = 0; i < sizeof(fallbacks) / sizeof(fallbacks[0]); i++) {
		if (PAPI_add_named_event(set, fallbacks[i]) == PAPI_OK) {
			printf("Using the software event %s instead.\n", fallbacks[i]);
			return PAPI_OK;
		}
	}
	util_error(prog, "neither PAPI_TOT_CYC nor a software event could be added");
	return PAPI_ENOEVNT;
}

static int run_case(int k, struct cost_ctx *c, long long *samples, long n)
{
	int rc = PAPI_OK;

	if (cases[k].running && (rc = PAPI_start(c->set)) != PAPI_OK)
		return rc;
	for (long i = 0; i < n && rc == PAPI_OK; i++) {
		long long t0 = PAPI_get_real_cyc();

		rc = cases[k].fn(c);
		samples[i] = PAPI_get_real_cyc() - t0;
	}
	if (cases[k].running) {
		int rs = PAPI_stop(c->set, c->vals);

		if (rc == PAPI_OK)
			rc = rs;
	}
	return rc;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void print_histogram(const long long *sorted, long n, int bins)
{
	long long lo = sorted[0], hi = sorted[(n - 1) * 99 / 100];
	long long width = (hi - lo) / bins + 1;
	long *count = calloc((size_t)bins + 1, sizeof(long)), peak = 1;

	if (!count)
		return;
	for (long i = 0; i < n; i++) {
		long long b = (sorted[i] - lo) / width;

		count[b < bins ? b : bins]++;
	}
	for (int b = 0; b <= bins; b++)
		peak = count[b] > peak ? count[b] : peak;
	printf("    %12s %10s\n", "cycles >=", "samples");
	for (int b = 0; b <= bins; b++) {
		int len = (int)((double)count[b] * COST_BAR_WIDTH / (double)peak + 0.5);

		printf("    %12lld %10ld %s", lo + b * width, count[b], b == bins ? "(rest) " : "");
		for (int j = 0; j < len; j++)
			putchar('#');
		putchar('\n');
	}
	free(count);
}

static void print_extras(const struct cost_opts *o, const struct util_stats *st,
			 long long *samples, long n)
{
	if (o->sdcount) {
		printf("    samples above mean + k std-dev:");
		for (int k = 1; k <= COST_MAX_SD; k++) {
			long above = 0;

			for (long i = 0; i < n; i++)
				above += (double)samples[i] > st->mean + k * st->sd;
			printf(" %d:%ld", k, above);
		}
		printf("\n");
	}
	if (!o->pct && !o->hist)
		return;
	qsort(samples, (size_t)n, sizeof(*samples), cmp_ll);
	if (o->pct)
		printf("    percentiles (cycles): 25th %lld, 50th %lld, 75th %lld\n",
		       samples[(n - 1) / 4], samples[(n - 1) / 2], samples[(n - 1) * 3 / 4]);
	if (o->hist)
		print_histogram(samples, n, o->bins);
}

static int run_all(const char *prog, const struct cost_opts *o, struct cost_ctx *c,
		   long long *samples)
{
	long long cyc0 = PAPI_get_real_cyc(), ns0 = PAPI_get_real_nsec();
	struct util_stats st[sizeof(cases) / sizeof(cases[0])];
	int ncases = (int)(sizeof(cases) / sizeof(cases[0]));

	for (int k = 0; k < ncases; k++) {
		int rc = run_case(k, c, samples + (long)k * o->iters, o->iters);

		if (rc != PAPI_OK)
			return util_error(prog, "%s failed: %s", cases[k].name, PAPI_strerror(rc));
		util_stats_of(samples + (long)k * o->iters, o->iters, &st[k]);
	}
	long long dcyc = PAPI_get_real_cyc() - cyc0, dns = PAPI_get_real_nsec() - ns0;

	c->ns_per_cyc = dcyc > 0 ? (double)dns / (double)dcyc : 0.0;
	printf("%-16s %10s %10s %12s %12s %12s\n", "Call", "min cyc", "max cyc", "mean cyc",
	       "std-dev cyc", "mean ns");
	for (int k = 0; k < ncases; k++) {
		printf("%-16s %10lld %10lld %12.1f %12.1f %12.1f\n", cases[k].name, st[k].min,
		       st[k].max, st[k].mean, st[k].sd, st[k].mean * c->ns_per_cyc);
		print_extras(o, &st[k], samples + (long)k * o->iters, o->iters);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *prog = "papi_cost";
	struct cost_opts o = {COST_DEFAULT_ITERS, COST_DEFAULT_BINS, 0, 0, 0};
	struct cost_ctx c = {PAPI_NULL, {0}, 0.0};
	long long *samples;
	int rc = parse_args(prog, argc, argv, &o);

	if (rc)
		return rc == 2 ? 0 : 1;
	util_init(prog);
	printf("Cost of PAPI calls, %ld iterations each.\n", o.iters);
	util_rule(stdout, '-');
	if ((rc = PAPI_create_eventset(&c.set)) != PAPI_OK)
		return util_error(prog, "PAPI_create_eventset: %s", PAPI_strerror(rc));
	if (choose_event(prog, c.set) != PAPI_OK)
		return 1;
	samples = malloc(sizeof(*samples) * (size_t)o.iters * (sizeof(cases) / sizeof(cases[0])));
	if (!samples)
		return util_error(prog, "out of memory for %ld samples", o.iters);
	util_rule(stdout, '-');
	rc = run_all(prog, &o, &c, samples);
	free(samples);
	PAPI_cleanup_eventset(c.set);
	PAPI_destroy_eventset(&c.set);
	PAPI_shutdown();
	return rc;
}
