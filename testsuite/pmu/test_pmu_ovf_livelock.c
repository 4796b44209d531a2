/*
 * test_pmu_ovf_livelock.c - overflow at the shortest thresholds on
 * hardware events must not stop the program (issue 46; the software-event
 * rows are overflow_livelock).  PAPI_TOT_CYC and PAPI_TOT_INS every 1,000
 * (and 100) events: one signal's handling costs several thousand
 * instructions, more than a period, so a handler that looped over what it
 * found kept the thread in it.  Each row runs a fixed loop (6*10^7
 * instructions) in a child that the parent kills after LIMIT_S of wall
 * time ("livelock").  In the child: calls >= 1 (signals came), calls <=
 * count / threshold (one call per overflow at most; the kernel overflows
 * at most once a period), count / threshold - 1 <= calls + missed <=
 * (count + the stop path's events) / threshold + 1 (every crossing delivered or counted missed: the
 * kernel throttles PAPI_TOT_INS every 1,000 here and wrote 19 samples for
 * 60,000 crossings, which were once lost without a word) and the period
 * in effect at least the threshold (Tally backs off).
 */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmu_util.h"
#include "tally.h"

#define LOOP_N 30000000ull /* 6*10^7 instructions */
#define LIMIT_S 240        /* the loop alone: ~1 s in the guest */
#define STOP_EVENTS 2000   /* cycles or instructions from PAPI_stop's read to the disable */

static long calls;

static void handler(int set, void *addr, long long vector, void *ctx)
{
	(void)set, (void)addr, (void)vector, (void)ctx;
	calls++;
}

static int child(int line, int code, int threshold)
{
	int set = PAPI_NULL;
	long long v[1], missed = -1, period = 0;

	th_failures = th_checks = 0;
	th_at(line);
	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	TH_EQ(PAPI_add_event(set, code), PAPI_OK);
	TH_EQ(PAPI_overflow(set, code, threshold, 0, handler), PAPI_OK);
	TH_EQ(pmu_measure(set, LOOP_N, v), PAPI_OK);
	TH_EQ(tally_overflow_missed(set, code, &missed, &period), PAPI_OK);
	printf("line %d: count %lld, %ld calls, %lld missed, period %lld (threshold %d)\n", line, v[0], calls,
	       missed, period, threshold);
	TH_CHECK(calls >= 1);
	TH_CHECK(calls <= v[0] / threshold);
	/* PAPI_stop reads the count before it disables the counter: the
	 * crossings settled at the disable may include those of the stop
	 * path itself (up to STOP_EVENTS events) */
	TH_CHECK(missed >= 0 && calls + missed <= (v[0] + STOP_EVENTS) / threshold + 1);
	TH_CHECK(calls + missed >= v[0] / threshold - 1);
	TH_CHECK(period >= threshold);
	PAPI_shutdown();
	int rc = th_done();
	fflush(stdout);
	return rc;
}

static void row(int line, int code, int threshold)
{
	double t0 = th_now_s();
	int st = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child(line, code, threshold));
	th_at(line);
	TH_CHECK(pid > 0);
	while (pid > 0 && waitpid(pid, &st, WNOHANG) == 0) {
		if (th_now_s() - t0 > LIMIT_S) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			printf("FAILED: line %d: threshold %d: the loop did not finish in %d s: livelock\n", line,
			       threshold, LIMIT_S);
			break;
		}
		usleep(20000);
	}
	printf("line %d: %.1f s of wall time\n", line, th_now_s() - t0);
	TH_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	th_at(0);
}

int main(void)
{
	pmu_require();
	row(__LINE__, PAPI_TOT_CYC, 1000);
	row(__LINE__, PAPI_TOT_CYC, 100);
	row(__LINE__, PAPI_TOT_INS, 1000);
	PAPI_shutdown();
	return th_done();
}
