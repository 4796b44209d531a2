/* bench_runtime_omp.c - EPCC-style OpenMP parallel-region overhead:
 * (time of N `omp parallel { delay }` - time of N delays) / N, on LLVM
 * libomp, once uninstrumented and once under tally-run (OMPT, per-thread
 * event sets with the default counters): the program runs itself twice as
 * a child (argv[1] = "child") from the same invocation and compares.
 * argv: TALLY_RUN LIBOMP_DIR. */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N 2000
#define BLOCKS 7

static volatile double sink;

static void delay(int n)
{
	double a = 0;

	for (int i = 0; i < n; i++)
		a += i * 0.5;
	sink = a;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double overhead(void)
{
	double t0 = now(), ref, par;

	for (int i = 0; i < N; i++)
		delay(500);
	ref = now() - t0;
	t0 = now();
	for (int i = 0; i < N; i++) {
#pragma omp parallel
		delay(500);
	}
	par = now() - t0;
	return (par - ref) / N;
}

static double child(void)
{
	double best = 1e30;

	overhead();
	for (int b = 0; b < BLOCKS; b++) {
		double o = overhead();

		best = o < best ? o : best;
	}
	printf("%.1f\n", best);
	return best;
}

static double run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	double v = -1;

	if (!p || fscanf(p, "%lf", &v) != 1)
		v = -1;
	if (p)
		pclose(p);
	return v;
}

int main(int argc, char **argv)
{
	char cmd[4096], self[2048];
	double plain, tally;
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "child"))
		return child() < 0;
	if (argc < 3)
		return 2;
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	self[n > 0 ? n : 0] = '\0';
	snprintf(cmd, sizeof cmd, "LD_LIBRARY_PATH=%s %s child", argv[2], self);
	plain = run(cmd);
	snprintf(cmd, sizeof cmd, "TALLY_VERBOSE=0 TALLY_OUTPUT_DIR=/tmp %s --libomp=auto -- %s child", argv[1], self);
	tally = run(cmd);
	if (plain < 0 || tally < 0) {
		printf("a child run failed\n");
		return 1;
	}
	printf("OpenMP parallel region (%d threads, EPCC-style): uninstrumented %.0f ns, under tally-run "
	       "%.0f ns; overhead %.0f ns per region (%.2fx)\n", omp_get_max_threads(), plain, tally,
	       tally - plain, tally / plain);
	return 0;
}
