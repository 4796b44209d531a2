/* bench_runtime_omp.c - EPCC-style OpenMP parallel-region overhead:
 * (time of N `omp parallel { delay }` - time of N delays) / N, on LLVM
 * libomp, uninstrumented, under tally-run in time-only mode
 * (TALLY_OMP_COUNTERS=0) and with the default counters: the program runs
 * itself as a child (argv[1] = "child") once per mode from the same
 * invocation and compares.  The floor of the counter mode is measured in
 * the same invocation too: a bare PAPI_read of the runtime's events
 * (argv[1] = "reads", under tally-run so the events are the same), times
 * the 4 reads each thread makes per region (enter and exit of the
 * implicit task and of the barrier wait).
 * argv: TALLY_RUN LIBOMP_DIR. */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"

#include "th_clock.h"

#define N 2000
#define BLOCKS 15

static volatile double sink;

static void delay(int n)
{
	double a = 0;

	for (int i = 0; i < n; i++)
		a += i * 0.5;
	sink = a;
}

static double overhead(void)
{
	double t0 = th_now_ns(), ref, par;

	for (int i = 0; i < N; i++)
		delay(500);
	ref = th_now_ns() - t0;
	t0 = th_now_ns();
	for (int i = 0; i < N; i++) {
#pragma omp parallel
		delay(500);
	}
	par = th_now_ns() - t0;
	return (par - ref) / N;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* median of paired blocks (each: delays alone, then in parallel regions):
 * robust to the load of a shared machine */
static double child(void)
{
	double o[BLOCKS];

	overhead();
	for (int b = 0; b < BLOCKS; b++)
		o[b] = overhead();
	qsort(o, BLOCKS, sizeof *o, cmp);
	printf("%.1f\n", o[BLOCKS / 2]);
	return 0;
}

/* ns of one PAPI_read of the default events on a running set */
static double reads(void)
{
	int es = PAPI_NULL, n = 0;
	long long v[8];
	double best = 1e30;
	const char *ev[] = { "PAPI_TOT_CYC", "PAPI_TOT_INS", "perf::TASK-CLOCK", "perf::PAGE-FAULTS",
			     "perf::CONTEXT-SWITCHES" };

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT || PAPI_create_eventset(&es) != PAPI_OK)
		return -1;
	/* the runtime's default: the hardware pair where countable, else the software trio */
	for (int i = 0; i < 2; i++)
		n += PAPI_add_named_event(es, ev[i]) == PAPI_OK;
	for (int i = 2; !n && i < 5; i++)
		PAPI_add_named_event(es, ev[i]);
	if (PAPI_start(es) != PAPI_OK)
		return -1;
	for (int b = 0; b < BLOCKS; b++) {
		double t0 = th_now_ns();

		for (int i = 0; i < N; i++)
			PAPI_read(es, v);
		best = (th_now_ns() - t0) / N < best ? (th_now_ns() - t0) / N : best;
	}
	printf("%.1f\n", best);
	return best;
}

static double run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	double v = -1e30;

	if (!p || fscanf(p, "%lf", &v) != 1)
		v = -1e30;
	if (p)
		pclose(p);
	return v;
}

int main(int argc, char **argv)
{
	char cmd[4096], self[2048];
	double plain, tonly, tally, rd;
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	if (argc > 1 && !strcmp(argv[1], "reads"))
		return reads() < 0;
	if (argc < 3)
		return 2;
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = '\0';
	snprintf(cmd, sizeof cmd, "LD_LIBRARY_PATH=%s %s child", argv[2], self);
	plain = run(cmd);
	snprintf(cmd, sizeof cmd, "TALLY_VERBOSE=0 TALLY_OUTPUT_DIR=/tmp %s --omp-counters=no -- %s child", argv[1],
		 self);
	tonly = run(cmd);
	snprintf(cmd, sizeof cmd, "TALLY_VERBOSE=0 TALLY_OUTPUT_DIR=/tmp %s -- %s child", argv[1], self);
	tally = run(cmd);
	snprintf(cmd, sizeof cmd, "TALLY_VERBOSE=0 TALLY_OUTPUT_DIR=/tmp %s --ompt=no -- %s reads", argv[1], self);
	rd = run(cmd);
	if (plain < -1e29 || tonly < -1e29 || tally < -1e29 || rd < 0) {
		printf("a child run failed\n");
		return 1;
	}
	printf("OpenMP parallel region (%d threads, EPCC-style): uninstrumented %.0f ns\n"
	       "  time only (TALLY_OMP_COUNTERS=0): %.0f ns, overhead %.0f ns per region and thread "
	       "(target <= 1000 ns; %.2fx the uninstrumented region)\n"
	       "  with counters: %.0f ns, overhead %.0f ns; floor: 4 counter reads per thread = %.0f ns "
	       "(one read %.0f ns); overhead - reads = %.0f ns (target <= 1000 ns)\n",
	       omp_get_max_threads(), plain, tonly, tonly - plain, tonly / plain, tally, tally - plain, 4 * rd,
	       rd, tally - plain - 4 * rd);
	return 0;
}
