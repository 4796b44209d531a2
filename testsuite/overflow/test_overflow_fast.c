/*
 * test_overflow_fast.c - overflow on perf::TASK-CLOCK with a 10 us
 * threshold (10,000 ns; issue 35: the process died of SIGIO in 3 of 3
 * runs).  At that rate the kernel's queue of real-time signals overflows
 * and it falls back to SIGIO, whose default action ends the process.  The
 * process must live, and the handler must still run once per threshold of
 * the thread's CPU time (the crossings are counted from the clock's value,
 * so signals the kernel merged lose nothing): at least 90% of CPU time /
 * 10 us and at most 110% of (CPU time + the thread's extra time) / 10 us.
 * A SIGIO handler the program installed itself still gets its SIGIOs
 * (Tally's handler chains to it; the second row, a fresh process, so the
 * handler is there when PAPI_overflow first takes SIGIO): the test raises
 * one itself, since the kernel falls back to SIGIO only when the queue
 * fills, which on an idle machine may not happen.
 */
#include <signal.h>
#include <sys/resource.h>

#include "api_util.h"

#define THRESHOLD 10000
#define WORK_NS 200000000LL /* 200 ms of CPU */

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

static void run(int line, int with_own)
{
	int tc, es = PAPI_NULL;
	long long v;
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
	th_spin_cpu_ns(WORK_NS);
	cpu = th_thread_cpu_ns() - t0;
	/* the kernel's fallback SIGIOs come only when the queue fills, which
	 * an idle machine may never do: one SIGIO of our own reaches the
	 * program's handler through Tally's all the same */
	if (with_own)
		raise(SIGIO);
	TH_EQ(PAPI_stop(es, &v), PAPI_OK);
	int64_t extra = th_clock_extra_ns(&around);
	TH_EQ(PAPI_overflow(es, tc, 0, 0, NULL), PAPI_OK);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	printf("line %d: %ld handler calls over %.1f ms of CPU (%ld expected), task-clock %lld ns, "
	       "program's SIGIO handler ran %ld times\n", line, calls, cpu / 1e6, (long)(cpu / THRESHOLD), v,
	       app_sigio);
	/* Every crossing of the clock's count is delivered: by the next
	 * signal, or at the latest by PAPI_stop (under ASan the signals once
	 * stopped for stretches and 1,862 and 3,304 of 20,000 were lost in 2
	 * of 10 runs); the same bound with and without sanitizers. */
	TH_CHECK(calls >= 0.90 * cpu / THRESHOLD);
	TH_CHECK(calls >= v / THRESHOLD);   /* every threshold the count crossed */
	TH_CHECK(calls <= 1.10 * (cpu + extra) / THRESHOLD);
	if (with_own)
		TH_CHECK(app_sigio > 0);   /* the raised one (and any fallback SIGIOs) reached it */
	th_at(0);
}

int main(int argc, char **argv)
{
	struct rlimit small = { 4, 4 };
	int own = argc > 1 && !strcmp(argv[1], "own");

	TH_EQ(setrlimit(RLIMIT_SIGPENDING, &small), 0);
	api_init();
	if (own)
		run(__LINE__, 1);
	else
		run(__LINE__, 0);
	PAPI_shutdown();
	return th_done();
}
