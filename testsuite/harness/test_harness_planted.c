/*
 * test_harness_planted.c - every assertion of tharness.h fails on planted
 * wrong values (0, half, double the truth) and passes on the truth; a test
 * that made no check fails; TH_SKIP exits 77.
 *
 * Each row runs in a forked child with fresh counters, exactly as a test
 * program would (one check, then th_done()); the parent checks the child's
 * exit status.  The clock rows measure a real window of CPU work.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1 /* fork, waitpid */
#endif
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tharness.h"

#define TRUTH 1000000LL
#define BURN_NS 60000000LL /* 60 ms of CPU: twice the 3 ms floor, 20 times */

static volatile uint64_t sink;

/* Burn about ns of CPU; the thread CPU time it took. */
static long long burn(long long ns)
{
	long long t0 = th_clock_now().cpu;
	clock_t end = clock() + (clock_t)(ns / 1e9 * CLOCKS_PER_SEC);

	while (clock() < end)
		for (int i = 0; i < 1000; i++)
			sink = sink * 6364136223846793005ULL + 1;
	return th_clock_now().cpu - t0;
}

/* A planted value: the truth times num/den. */
struct row {
	int line;
	const char *macro;
	int num, den;  /* planted = truth * num / den */
	int want;      /* child exit status */
};

static void check_one(const struct row *r)
{
	double f = (double)r->num / r->den;

	if (strcmp(r->macro, "TH_CHECK") == 0) {
		TH_CHECK(TRUTH * f == TRUTH);
	} else if (strcmp(r->macro, "TH_EQ") == 0) {
		TH_EQ((long long)(TRUTH * f), TRUTH);
	} else if (strcmp(r->macro, "TH_NEAR") == 0) {
		TH_NEAR(TRUTH * f, TRUTH, 0.05);
	} else if (strcmp(r->macro, "TH_NEAR_CLOCK") == 0) {
		long long cpu;

		th_clock_begin();
		cpu = burn(BURN_NS);
		TH_NEAR_CLOCK(cpu * f, cpu);
	} else if (strcmp(r->macro, "TH_CLOCK_IN") == 0) {
		struct th_clock c0 = th_clock_now();
		long long cpu = burn(BURN_NS);

		TH_CLOCK_IN(cpu * f, cpu, cpu, th_clock_extra_ns(&c0));
	} else if (strcmp(r->macro, "TH_FAULTS_IN") == 0) {
		TH_FAULTS_IN(TRUTH * f, TRUTH, TRUTH);
	} else if (strcmp(r->macro, "TH_FAULTS_IN+") == 0) {
		/* the kernel booked 3% more than the pages touched: its count passes */
		TH_FAULTS_IN(TRUTH * f, TRUTH, TRUTH * 103 / 100);
	} else if (strcmp(r->macro, "none") == 0) {
		(void)f; /* a test that checks nothing */
	} else if (strcmp(r->macro, "TH_SKIP") == 0) {
		TH_SKIP("planted skip");
	}
}

static int run_child(const struct row *r)
{
	int status = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		th_failures = th_checks = 0;
		th_row_line = 0;
		check_one(r);
		_exit(th_done());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void)
{
	static const char *const macros[] = { "TH_CHECK", "TH_EQ", "TH_NEAR", "TH_NEAR_CLOCK", "TH_CLOCK_IN",
					       "TH_FAULTS_IN" };
	struct row extra[] = {
		{ __LINE__, "none", 1, 1, 1 },
		{ __LINE__, "TH_SKIP", 1, 1, 77 },
		{ __LINE__, "TH_NEAR", 104, 100, 0 }, /* inside 5% */
		{ __LINE__, "TH_NEAR", 106, 100, 1 }, /* outside 5% */
		{ __LINE__, "TH_FAULTS_IN+", 103, 100, 0 }, /* all the kernel booked */
		{ __LINE__, "TH_FAULTS_IN+", 106, 100, 1 }, /* more than it booked */
	};

	for (size_t m = 0; m < sizeof macros / sizeof *macros; m++) {
		struct row rows[] = {
			{ __LINE__, macros[m], 1, 1, 0 }, /* the truth passes */
			{ __LINE__, macros[m], 0, 1, 1 }, /* zero fails */
			{ __LINE__, macros[m], 1, 2, 1 }, /* half fails */
			{ __LINE__, macros[m], 2, 1, 1 }, /* double fails */
		};

		for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
			int got = run_child(&rows[i]);

			printf("%s with truth * %d/%d: exit %d (want %d)\n", rows[i].macro, rows[i].num, rows[i].den,
			       got, rows[i].want);
			th_at(rows[i].line);
			TH_EQ(got, rows[i].want);
		}
	}
	for (size_t i = 0; i < sizeof extra / sizeof *extra; i++) {
		int got = run_child(&extra[i]);

		printf("%s with truth * %d/%d: exit %d (want %d)\n", extra[i].macro, extra[i].num, extra[i].den, got,
		       extra[i].want);
		th_at(extra[i].line);
		TH_EQ(got, extra[i].want);
	}
	th_at(0);
	return th_done();
}
