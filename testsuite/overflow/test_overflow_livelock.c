/*
 * test_overflow_livelock.c - PAPI_overflow at the shortest thresholds on
 * software events must not stop the program (issue 46: with a 10 us
 * task-clock threshold the thread spun in the kernel's timer interrupts
 * and in the SIGIO handler, which delivered every crossed threshold, one
 * call each, while the clock crossed new ones: the program never ran
 * again).
 *
 * Each row runs in a child process that does a FIXED amount of work
 * (floating-point rounds, calibrated once without overflow to about
 * WORK_NS of CPU) with overflow on; the parent waits at most
 * LIMIT_S of wall time for it (a livelocked child is killed and the row
 * fails with a message, never ctest's limit).  In the child, with the
 * set stopped:
 *   - some handler calls came (>= 1);
 *   - calls are bounded per signal: at most one per counter per signal,
 *     and the kernel samples a clock at most every 10 us of its count, so
 *     calls <= clocks x (task-clock / 10 us) + clocks (PAPI_stop's);
 *     delivering every crossing (the livelock) gives threshold/10 us x
 *     more;
 *   - the undelivered crossings are counted: for a clock (its count in
 *     every sample), count / threshold <= calls + missed <= (count +
 *     the CPU time of PAPI_stop) / threshold + 1 (PAPI_stop reads the
 *     count, then disables the counters and takes the account); for
 *     page faults, calls + missed <= count / threshold.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api_util.h"
#include "tally.h"

#define WORK_NS 50000000LL /* ~50 ms of CPU of fixed work per row */
#define LIMIT_S 30         /* 50 ms of CPU at a load of 2x the cores: ~1 s */
#define KERNEL_FLOOR_NS 10000 /* the kernel's shortest clock sampling period */

static long calls;
static long rounds;

static void handler(int es, void *pc, long long vec, void *ctx)
{
	(void)es, (void)pc, (void)vec, (void)ctx;
	calls++;
}

struct row {
	int line;
	const char *ev[2];  /* one or two events */
	int threshold;
	int small_queue;    /* RLIMIT_SIGPENDING 4: the kernel falls back to SIGIO */
	int faults;         /* the work also takes page faults */
};

static double work(const struct row *r)
{
	double x = 0;

	for (int k = 0; k < 10; k++) {
		x += th_spin_rounds(rounds / 10);
		if (r->faults && touch_fresh_pages(256) != 256)
			return -1;
	}
	return x;
}

/* The child: the row's set, the work, the account.  Exit status 0 or 1. */
static int child(const struct row *r)
{
	int es = PAPI_NULL, code[2], n = r->ev[1] ? 2 : 1, clocks = 0;
	long long v[2], missed[2], period[2];
	struct rlimit small = { 4, 4 };

	th_failures = th_checks = 0;   /* the child's own checks (forked from the parent's) */
	th_at(r->line);
	if (r->small_queue)
		TH_EQ(setrlimit(RLIMIT_SIGPENDING, &small), 0);
	api_init();
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	for (int i = 0; i < n; i++) {
		TH_EQ(PAPI_event_name_to_code(r->ev[i], &code[i]), PAPI_OK);
		TH_EQ(PAPI_add_event(es, code[i]), PAPI_OK);
		TH_EQ(PAPI_overflow(es, code[i], r->threshold, 0, handler), PAPI_OK);
		clocks += strstr(r->ev[i], "CLOCK") != NULL;
	}
	TH_EQ(PAPI_start(es), PAPI_OK);
	TH_CHECK(work(r) >= 0);
	long long s0 = th_thread_cpu_ns();
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	long long in_stop = th_thread_cpu_ns() - s0;
	for (int i = 0; i < n; i++)
		TH_EQ(tally_overflow_missed(es, code[i], &missed[i], &period[i]), PAPI_OK);
	printf("line %d: %ld calls;", r->line, calls);
	for (int i = 0; i < n; i++)
		printf(" %s count %lld, missed %lld, period %lld;", r->ev[i], v[i], missed[i], period[i]);
	printf("\n");
	TH_CHECK(calls >= 1);
	long long bound = 0;
	for (int i = 0; i < n; i++) {
		int clock = strstr(r->ev[i], "CLOCK") != NULL;

		bound += clock ? v[i] / KERNEL_FLOOR_NS + 1 : v[i] / r->threshold + 1;
		TH_CHECK(missed[i] >= 0);
		if (clock && n == 1)
			TH_CHECK(calls + missed[i] >= v[i] / r->threshold &&
			         calls + missed[i] <= (v[i] + in_stop) / r->threshold + 1);
		else if (n == 1)
			TH_CHECK(calls + missed[i] <= v[i] / r->threshold);
		TH_CHECK(period[i] >= r->threshold);
	}
	TH_CHECK(calls <= bound);
	(void)clocks;
	PAPI_shutdown();
	int rc = th_done();
	fflush(stdout);
	return rc;
}

/* Runs the row in a child; fails it when the child outlives LIMIT_S. */
static void run(const struct row *r)
{
	pid_t pid;
	int st = 0;
	double t0 = th_now_s();

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(child(r));
	th_at(r->line);
	TH_CHECK(pid > 0);
	if (pid <= 0)
		return;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (th_now_s() - t0 > LIMIT_S) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			printf("FAILED: line %d: %s at threshold %d: the program's work (%ld rounds, ~%lld ms of CPU) "
			       "did not finish in %d s of wall time: livelock\n",
			       r->line, r->ev[0], r->threshold, rounds, WORK_NS / 1000000, LIMIT_S);
			TH_CHECK(0);
			th_at(0);
			return;
		}
		usleep(10000);
	}
	printf("line %d: finished in %.2f s of wall time\n", r->line, th_now_s() - t0);
	TH_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	th_at(0);
}

/* Rounds of th_spin_rounds for about WORK_NS of CPU, without overflow. */
static void calibrate(void)
{
	long long t0 = th_thread_cpu_ns(), t;

	rounds = 100000;
	th_spin_rounds(rounds);
	t = th_thread_cpu_ns() - t0;
	rounds = t > 0 ? (long)(rounds * (double)WORK_NS / (double)t) : rounds;
	if (rounds < 10000)
		rounds = 10000;
}

int main(void)
{
	static const struct row rows[] = {
		{ __LINE__, { API_TASK_CLOCK, NULL }, 1000, 0, 0 },
		{ __LINE__, { "perf::CPU-CLOCK", NULL }, 1000, 0, 0 },
		{ __LINE__, { API_TASK_CLOCK, NULL }, 1, 0, 0 },
		{ __LINE__, { API_TASK_CLOCK, NULL }, 1000, 1, 0 },
		{ __LINE__, { API_TASK_CLOCK, NULL }, 10000, 1, 0 },
		{ __LINE__, { API_TASK_CLOCK, "perf::CPU-CLOCK" }, 1000, 1, 0 },
		{ __LINE__, { API_PAGE_FAULTS, NULL }, 1, 1, 1 },
	};

	calibrate();
	printf("work: %ld rounds (~%lld ms of CPU without overflow)\n", rounds, WORK_NS / 1000000);
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		run(&rows[i]);
	return th_done();
}
