/*
 * test_overflow_fast.c - overflow on perf::TASK-CLOCK with a 10 us
 * threshold (10,000 ns; issue 35: the process died of SIGIO in 3 of 3
 * runs; issue 46: at the kernel's 10 us period the thread livelocked in
 * timer interrupts and the handler).  At that rate the kernel's queue of
 * real-time signals overflows and it falls back to SIGIO, whose default
 * action ends the process.  The process must live and finish its work
 * within WALL_LIMIT_S (a watchdog ends it with a message, not ctest's
 * limit), and the account must be exact: handler calls + missed
 * (tally_overflow_missed) = the thresholds the final count crossed.
 * Signals must really arrive during the run: PAPI_stop gives at most one
 * call per counter, so the calls must be at least a quarter of
 * task-clock / the sampling period in effect (one call per signal; the
 * kernel drops a period whose timer fires in the kernel, and signals
 * merged in the full queue give one call; measured >= 70% here), and at
 * most (CPU + the thread's extra time) / threshold.  A SIGIO handler the
 * program installed itself still gets its SIGIOs (Tally's handler chains
 * to it; the second row, a fresh process, so the handler is there when
 * PAPI_overflow first takes SIGIO): the test raises one itself, since the
 * kernel falls back to SIGIO only when the queue fills.  `nosignal`: a
 * planted fault, every signal held off during the work: the lower bound
 * must catch it (the row passes when the bound fails).
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "api_util.h"
#include "tally.h"

#define THRESHOLD 10000
#define WORK_NS 200000000LL /* 200 ms of CPU */
#define WALL_LIMIT_S 60     /* 200 ms of CPU at a load of 2x the cores takes ~1 s */

enum mode { PLAIN, OWN, NOSIGNAL };

static long calls, app_sigio;

static void handler(int es, void *pc, long long vec, void *ctx)
{
	(void)es, (void)pc, (void)vec, (void)ctx;
	calls++;
}

static void own_sigio(int sig)
{
	(void)sig;
	app_sigio++;
}

static void watchdog(int sig)
{
	static const char msg[] = "FAILED: overflow_fast: the program's work did not finish within "
	                          "60 s of wall time (livelock in overflow delivery?)\n";

	(void)sig;
	if (write(2, msg, sizeof msg - 1) < 0) {
	}
	_exit(1);
}

/* Every signal the overflow path may use, held off (the planted fault). */
static void hold_signals(int how)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGIO);
	for (int k = SIGRTMIN; k <= SIGRTMAX; k++)
		sigaddset(&s, k);
	sigprocmask(how, &s, NULL);
}

static void run(int line, enum mode mode)
{
	int tc, es = PAPI_NULL, with_own = mode == OWN;
	long long v, missed = -1, period = 0;
	struct th_clock around;
	int64_t t0, cpu;
	struct sigaction sa;

	th_at(line);
	calls = app_sigio = 0;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = with_own ? own_sigio : SIG_DFL;
	sigemptyset(&sa.sa_mask);
	if (with_own)
		TH_EQ(sigaction(SIGIO, &sa, NULL), 0);
	TH_EQ(PAPI_event_name_to_code(API_TASK_CLOCK, &tc), PAPI_OK);
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_event(es, tc), PAPI_OK);
	TH_EQ(PAPI_overflow(es, tc, THRESHOLD, 0, handler), PAPI_OK);
	around = th_clock_now();
	TH_EQ(PAPI_start(es), PAPI_OK);
	t0 = th_thread_cpu_ns();
	if (mode == NOSIGNAL)
		hold_signals(SIG_BLOCK);
	th_spin_cpu_ns(WORK_NS);
	cpu = th_thread_cpu_ns() - t0;
	/* the kernel's fallback SIGIOs come only when the queue fills, which
	 * an idle machine may never do: one SIGIO of our own reaches the
	 * program's handler through Tally's all the same */
	if (with_own)
		raise(SIGIO);
	int64_t s0 = th_thread_cpu_ns();
	TH_EQ(PAPI_stop(es, &v), PAPI_OK);
	int64_t in_stop = th_thread_cpu_ns() - s0;
	int64_t extra = th_clock_extra_ns(&around);
	TH_EQ(tally_overflow_missed(es, tc, &missed, &period), PAPI_OK);
	if (mode == NOSIGNAL)
		hold_signals(SIG_UNBLOCK);
	TH_EQ(PAPI_overflow(es, tc, 0, 0, NULL), PAPI_OK);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	printf("line %d: %ld handler calls + %lld missed over %.1f ms of CPU, task-clock %lld ns "
	       "(%lld thresholds), sampling period %lld ns, program's SIGIO handler ran %ld times\n",
	       line, calls, missed, cpu / 1e6, v, v / THRESHOLD, period, app_sigio);
	/* signals came during the run: one call per signal, at most one
	 * from PAPI_stop */
	int came = period > 0 && calls >= 0.25 * v / period;
	if (mode == NOSIGNAL) {
		TH_CHECK(!came);   /* the planted fault is caught */
		th_at(0);
		return;
	}
	TH_CHECK(came);
	TH_CHECK(period >= THRESHOLD);
	/* every threshold the count crossed, accounted: PAPI_stop reads v,
	 * then disables the counters and takes the account, so the count
	 * accounted is v plus at most the CPU time PAPI_stop took */
	TH_CHECK(calls + missed >= v / THRESHOLD);
	TH_CHECK(calls + missed <= (v + in_stop) / THRESHOLD + 1);
	TH_CHECK(calls <= 1.10 * (cpu + extra) / THRESHOLD);
	if (with_own)
		TH_CHECK(app_sigio > 0);   /* the raised one (and any fallback SIGIOs) reached it */
	th_at(0);
}

int main(int argc, char **argv)
{
	struct rlimit small = { 4, 4 };
	const char *m = argc > 1 ? argv[1] : "";

	signal(SIGALRM, watchdog);
	alarm(WALL_LIMIT_S);
	TH_EQ(setrlimit(RLIMIT_SIGPENDING, &small), 0);
	api_init();
	if (!strcmp(m, "own"))
		run(__LINE__, OWN);
	else if (!strcmp(m, "nosignal"))
		run(__LINE__, NOSIGNAL);
	else
		run(__LINE__, PLAIN);
	PAPI_shutdown();
	return th_done();
}
