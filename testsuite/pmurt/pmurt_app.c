/*
 * pmurt_app.c - known work in three functions for sampling on a hardware
 * counter (TALLY_SAMPLING_EVENT=PAPI_TOT_CYC@P, PAPI_TOT_INS@P) in the
 * arm64 guest (test pmurt_sampling, docs/pmuvm.md).  Built -O2 -g without
 * frame pointers.
 *
 * work_big, work_mid and work_small run the same loop for 60, 30 and 10
 * parts of the iterations, in ROUNDS rounds.  Each call is measured by the
 * program itself through the PAPI API (libtally), PAPI_start and
 * PAPI_stop around it on {PAPI_TOT_CYC, PAPI_TOT_INS} in PAPI's default
 * domain (user), the domain the sampler counts in: the counts a
 * PAPI_overflow program on the same events expects, count / threshold
 * handler calls.  Their sums per function go to TRUTH.
 *
 * pmurt_app TRUTH [EXIT_STATUS [ITERATIONS [ROUNDS]]]
 * Prints one fixed line on stdout and exits with EXIT_STATUS (default 0),
 * so a run under tally-run can be compared with a plain one.  Exit 77: no
 * hardware PMU counts PAPI_TOT_CYC and PAPI_TOT_INS here.
 */
#include <stdio.h>
#include <stdlib.h>

#include "papi.h"

#if defined(__GNUC__) && !defined(__clang__)
#define WORK_ATTR __attribute__((noipa))
#else
#define WORK_ATTR __attribute__((noinline))
#endif

enum { BIG, MID, SMALL, NWORK };

static WORK_ATTR double work_big(long n, double x)
{
	for (long i = 0; i < n; i++) {
		x = x * 1.0000001 + 1e-9;   /* WORK_BIG */
		x = x > 2.0 ? x - 1.0 : x;
	}
	return x;
}

static WORK_ATTR double work_mid(long n, double x)
{
	for (long i = 0; i < n; i++) {
		x = x * 1.0000001 + 1e-9;   /* WORK_MID */
		x = x > 2.0 ? x - 1.0 : x;
	}
	return x;
}

static WORK_ATTR double work_small(long n, double x)
{
	for (long i = 0; i < n; i++) {
		x = x * 1.0000001 + 1e-9;   /* WORK_SMALL */
		x = x > 2.0 ? x - 1.0 : x;
	}
	return x;
}

static double (*const work[NWORK])(long, double) = { work_big, work_mid, work_small };
static const char *const work_name[NWORK] = { "work_big", "work_mid", "work_small" };
static const int work_parts[NWORK] = { 60, 30, 10 };

/* The set {PAPI_TOT_CYC, PAPI_TOT_INS}; exits 77 where they do not count. */
static int open_set(void)
{
	int set = PAPI_NULL, rc = PAPI_library_init(PAPI_VER_CURRENT);

	if (rc != PAPI_VER_CURRENT) {
		fprintf(stderr, "pmurt_app: PAPI_library_init: %d\n", rc);
		exit(1);
	}
	if (PAPI_create_eventset(&set) != PAPI_OK || PAPI_add_event(set, PAPI_TOT_CYC) != PAPI_OK ||
	    PAPI_add_event(set, PAPI_TOT_INS) != PAPI_OK) {
		fprintf(stderr, "pmurt_app: no hardware PMU counts PAPI_TOT_CYC and PAPI_TOT_INS here\n");
		exit(77);
	}
	return set;
}

int main(int argc, char **argv)
{
	long iters = argc > 3 ? atol(argv[3]) : 100000000L, rounds = argc > 4 ? atol(argv[4]) : 4;
	long long sum[NWORK][2] = { { 0 } }, v[2];
	int status = argc > 2 ? atoi(argv[2]) : 0, set;
	double x = 1.0;
	FILE *out;

	if (argc < 2 || iters < 100 || rounds < 1) {
		fprintf(stderr, "usage: pmurt_app TRUTH [EXIT_STATUS [ITERATIONS [ROUNDS]]]\n");
		return 2;
	}
	set = open_set();
	for (long r = 0; r < rounds; r++)
		for (int k = 0; k < NWORK; k++) {
			long n = iters / 100 * work_parts[k] / rounds;

			if (PAPI_start(set) != PAPI_OK)
				return 1;
			x = work[k](n, x);
			if (PAPI_stop(set, v) != PAPI_OK || v[0] < 0 || v[1] < 0)
				return 1;
			sum[k][0] += v[0];
			sum[k][1] += v[1];
		}
	if (!(out = fopen(argv[1], "w")))
		return 1;
	/* name, PAPI_TOT_CYC, PAPI_TOT_INS, calls */
	for (int k = 0; k < NWORK; k++)
		fprintf(out, "%s %lld %lld %ld\n", work_name[k], sum[k][0], sum[k][1], rounds);
	fclose(out);
	printf("pmurt_app: %d functions, %s\n", NWORK, x > 0.0 ? "done" : "odd");
	return status;
}
