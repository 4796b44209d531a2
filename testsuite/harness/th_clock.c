/*
 * th_clock.c - the harness's clock readings (see tharness.h): the calling
 * thread's CPU time, wall time and run-queue wait, and the per-thread
 * window TH_NEAR_CLOCK credits.  A .c file of its own so the harness
 * header needs no POSIX feature macros from the tests that include it.
 */
#define _GNU_SOURCE 1 /* clock_gettime, /proc/thread-self */
#include "th_clock.h"

#include <stdio.h>
#include <time.h>

static long long ns_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

double th_now_s(void)
{
	return (double)ns_of(CLOCK_MONOTONIC) * 1e-9;
}

double th_now_ns(void)
{
	return (double)ns_of(CLOCK_MONOTONIC);
}

long long th_thread_cpu_ns(void)
{
	return ns_of(CLOCK_THREAD_CPUTIME_ID);
}

void th_spin_cpu_ns(long long ns)
{
	volatile double x = 1.0;
	long long end = th_thread_cpu_ns() + ns;

	while (th_thread_cpu_ns() < end)
		for (int i = 0; i < 1000; i++)
			x = x * 1.0000001 + 1e-9;
}

double th_spin_rounds(long n)
{
	volatile double x = 1.0;

	for (long i = 0; i < n; i++)
		x = x * 1.0000001 + 1e-9;
	return x;
}

/* The calling thread's run-queue wait so far, ns (-1: no schedstat). */
static long long run_delay_ns(void)
{
	long long run, wait = -1;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld %lld", &run, &wait) != 2)
		wait = -1;
	fclose(f);
	return wait;
}

/*
 * The order of the reads matters: reading schedstat is a system call, and
 * on a loaded machine the thread can wait in the run queue right after
 * it (at fclose).  Such a wait, between a window's delay and wall reads,
 * counts in the window's run-queue wait but not in its wall time when the
 * opening reading takes the delay first: the extra time came out short
 * by the wait (api_thread_stress, 36 threads on 2 cores: task-clock
 * 21.05 ms above CPU time 16.76 ms + extra 1.74 ms).  So an opening
 * reading takes the wall clock first and the closing one last: a wait
 * between the reads can only widen the window.
 */
struct th_clock th_clock_now(void)
{
	struct th_clock c;

	c.wall = ns_of(CLOCK_MONOTONIC);
	c.delay = run_delay_ns();
	c.cpu = ns_of(CLOCK_THREAD_CPUTIME_ID);
	return c;
}

/* The closing reading of a window: CPU time and run-queue wait first,
 * the wall clock last. */
static struct th_clock clock_close(void)
{
	struct th_clock c;

	c.cpu = ns_of(CLOCK_THREAD_CPUTIME_ID);
	c.delay = run_delay_ns();
	c.wall = ns_of(CLOCK_MONOTONIC);
	return c;
}

long long th_clock_extra_ns(const struct th_clock *since)
{
	struct th_clock now = clock_close();
	long long extra;

	if (since->delay < 0 || now.delay < 0)
		return 0;
	extra = (now.wall - since->wall) - (now.delay - since->delay) - (now.cpu - since->cpu);
	return extra > 0 ? extra : 0;
}

struct th_clock th_own_begin(void)
{
	return th_clock_now();
}

double th_own_ns(const struct th_clock *since)
{
	struct th_clock now = clock_close();

	if (since->delay < 0 || now.delay < 0)
		return (double)(now.wall - since->wall);
	return (double)((now.wall - since->wall) - (now.delay - since->delay));
}

/* Per thread: where its TH_NEAR_CLOCK window opened. */
static _Thread_local struct th_clock mark;
static _Thread_local int marked;

void th_clock_begin(void)
{
	mark = th_clock_now();
	marked = 1;
}

double th_clock_allowance_ns(void)
{
	return marked ? (double)th_clock_extra_ns(&mark) : 0;
}
