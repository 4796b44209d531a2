/*
 * bench_switch_cost.c - what a thread's own counters cost each time the
 * kernel switches it out and in (issue 48, docs/runtime.md).
 *
 * Two threads take turns on one CPU (a semaphore round trip: two context
 * switches), as the threads of a fine-grained OpenMP code do when Open
 * MPI binds a rank to one core.  Modes, interleaved round by round:
 *   none       no counters;
 *   papi       each thread its own PAPI event set of perf::TASK-CLOCK,
 *              perf::PAGE-FAULTS, perf::CONTEXT-SWITCHES, started (what
 *              Tally's runtime gives every measured thread where the CPU
 *              has no PMU);
 *   inherited  the same three opened once by the first thread with
 *              perf_event_open's inherit flag before the second starts
 *              (how `perf stat` counts a process: the kernel can swap two
 *              threads' equivalent contexts, but no thread's own values
 *              can be read);
 *   perfsamp   no counters, but each thread its own perf cpu-clock event
 *              sampling at RATE per CPU second with a signal per sample
 *              (the sampling source `perf`, docs/sampling.md);
 *   timer      each thread a POSIX timer on its own CPU clock at RATE,
 *              a signal to the thread at each expiry (the source `timer`).
 * Prints the median time per round trip and its ratio to `none`.  A
 * benchmark, not a test: exit 0 unless a call fails.
 *   bench_switch_cost [ROUND_TRIPS] [ROUNDS] [RATE (default 100)]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"

enum { NONE, PAPI, INHERITED, PERFSAMP, TIMER, NMODES };
static const char *mode_name[NMODES] = { "none", "papi", "inherited", "perfsamp", "timer" };
static atomic_long samples;            /* signals the handler took (both threads; lock-free) */

static void on_sample(int sig)
{
	(void)sig;
	atomic_fetch_add(&samples, 1);
}

/* The calling thread's sampling source of `mode` (PERFSAMP: *fd, TIMER:
 * *tm), signalling this thread RATE times per CPU second. */
static int samp_on(int mode, int rate, int *fd, timer_t *tm)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	long period = 1000000000L / rate;

	if (mode == PERFSAMP) {
		struct perf_event_attr at;
		struct f_owner_ex own = { F_OWNER_TID, tid };

		memset(&at, 0, sizeof at);
		at.type = PERF_TYPE_SOFTWARE;
		at.size = sizeof at;
		at.config = PERF_COUNT_SW_CPU_CLOCK;
		at.sample_period = (unsigned long long)period;
		at.wakeup_events = 1;
		at.exclude_kernel = 1;
		*fd = (int)syscall(SYS_perf_event_open, &at, 0, -1, -1, 0);
		if (*fd < 0)
			return -1;
		/* created enabled; a signal at every sample, as the source's */
		return fcntl(*fd, F_SETOWN_EX, &own) == 0 && fcntl(*fd, F_SETSIG, SIGRTMIN + 1) == 0 &&
		       fcntl(*fd, F_SETFL, O_ASYNC) == 0 ? 0 : -1;
	}
	struct sigevent ev;
	struct itimerspec it = { { 0, period }, { 0, period } };

	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGRTMIN + 1;
	ev._sigev_un._tid = tid;
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, tm) != 0)
		return -1;
	return timer_settime(*tm, 0, &it, NULL);
}

static void samp_off(int mode, int fd, timer_t tm)
{
	if (mode == PERFSAMP && fd >= 0)
		close(fd);
	if (mode == TIMER)
		timer_delete(tm);
}
static const char *ev_names[3] = { "perf::TASK-CLOCK", "perf::PAGE-FAULTS", "perf::CONTEXT-SWITCHES" };

struct run {
	int mode, trips, rate, failed;
	sem_t ping, pong;
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A started event set of the three events on the calling thread. */
static int papi_on(int *set)
{
	*set = PAPI_NULL;
	if (PAPI_create_eventset(set) != PAPI_OK)
		return -1;
	for (int i = 0; i < 3; i++)
		if (PAPI_add_named_event(*set, ev_names[i]) != PAPI_OK)
			return -1;
	return PAPI_start(*set) == PAPI_OK ? 0 : -1;
}

static void papi_off(int *set)
{
	long long v[3];

	PAPI_stop(*set, v);
	PAPI_cleanup_eventset(*set);
	PAPI_destroy_eventset(set);
}

static void *second(void *arg)
{
	struct run *r = arg;
	int set = PAPI_NULL, fd = -1;
	timer_t tm = 0;

	if (r->mode == PAPI && papi_on(&set) != 0)
		r->failed = 1;
	if ((r->mode == PERFSAMP || r->mode == TIMER) && samp_on(r->mode, r->rate, &fd, &tm) != 0)
		r->failed = 1;
	for (int i = 0; i < r->trips; i++) {
		sem_wait(&r->ping);
		sem_post(&r->pong);
	}
	if (r->mode == PAPI) {
		papi_off(&set);
		PAPI_unregister_thread();
	}
	samp_off(r->mode, fd, tm);
	return NULL;
}

/* The inherited counters of the calling thread and the threads it starts. */
static int inherited_on(int *fd)
{
	static const int cfg[3] = { PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
				    PERF_COUNT_SW_CONTEXT_SWITCHES };

	for (int i = 0; i < 3; i++) {
		struct perf_event_attr at;

		memset(&at, 0, sizeof at);
		at.type = PERF_TYPE_SOFTWARE;
		at.size = sizeof at;
		at.config = (unsigned long long)cfg[i];
		at.inherit = 1;
		fd[i] = (int)syscall(SYS_perf_event_open, &at, 0, -1, -1, 0);
		if (fd[i] < 0)
			return -1;
	}
	return 0;
}

/* Seconds per round trip of one run of `trips`. */
static double one(int mode, int trips, int rate, int *failed)
{
	struct run r = { .mode = mode, .trips = trips, .rate = rate };
	int set = PAPI_NULL, fd[3] = { -1, -1, -1 }, sfd = -1;
	timer_t tm = 0;
	pthread_t t;
	double t0, t1;

	sem_init(&r.ping, 0, 0);
	sem_init(&r.pong, 0, 0);
	if (mode == INHERITED && inherited_on(fd) != 0)
		*failed = 1;
	if (pthread_create(&t, NULL, second, &r) != 0) {
		*failed = 1;
		return 0;
	}
	if (mode == PAPI && papi_on(&set) != 0)
		*failed = 1;
	if ((mode == PERFSAMP || mode == TIMER) && samp_on(mode, rate, &sfd, &tm) != 0)
		*failed = 1;
	t0 = now_s();
	for (int i = 0; i < trips; i++) {
		sem_post(&r.ping);
		sem_wait(&r.pong);
	}
	t1 = now_s();
	pthread_join(t, NULL);
	if (mode == PAPI)
		papi_off(&set);
	samp_off(mode, sfd, tm);
	for (int i = 0; i < 3; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	*failed |= r.failed;
	sem_destroy(&r.ping);
	sem_destroy(&r.pong);
	return (t1 - t0) / trips;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int trips = argc > 1 ? atoi(argv[1]) : 50000, rounds = argc > 2 ? atoi(argv[2]) : 7, failed = 0;
	double *t[NMODES], med[NMODES];
	cpu_set_t cpus, one_cpu;
	struct sigaction sa;
	int rate = argc > 3 ? atoi(argv[3]) : 100;

	if (trips < 1 || rounds < 1 || rate < 1 || rate > 100000) {
		fprintf(stderr, "usage: bench_switch_cost [ROUND_TRIPS>0] [ROUNDS>0] [RATE 1..100000]\n");
		return 2;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sample;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGRTMIN + 1, &sa, NULL) != 0)
		return 1;
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT
	    || PAPI_thread_init((unsigned long (*)(void))pthread_self) != PAPI_OK) {
		fprintf(stderr, "bench_switch_cost: PAPI_library_init or PAPI_thread_init failed\n");
		return 1;
	}
	/* both threads on the first CPU this process may use */
	if (sched_getaffinity(0, sizeof cpus, &cpus) != 0)
		return 1;
	CPU_ZERO(&one_cpu);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &cpus)) {
			CPU_SET(c, &one_cpu);
			break;
		}
	if (sched_setaffinity(0, sizeof one_cpu, &one_cpu) != 0)
		return 1;
	for (int m = 0; m < NMODES; m++)
		if (!(t[m] = calloc((size_t)rounds, sizeof *t[m])))
			return 1;
	for (int k = 0; k < rounds; k++)
		for (int i = 0; i < NMODES; i++) {
			int m = (k + i) % NMODES;   /* each mode first in turn */

			t[m][k] = one(m, trips, rate, &failed);
		}
	printf("two threads taking turns on one CPU, %d round trips (2 switches each) x %d rounds, medians:\n",
	       trips, rounds);
	printf("%-10s %14s %10s\n", "mode", "us/round trip", "x none");
	for (int m = 0; m < NMODES; m++) {
		qsort(t[m], (size_t)rounds, sizeof *t[m], cmp);
		med[m] = t[m][rounds / 2];
	}
	for (int m = 0; m < NMODES; m++)
		printf("%-10s %14.2f %10.3f\n", mode_name[m], med[m] * 1e6, med[m] / med[NONE]);
	printf("a thread's own counters add %.2f us per switch; its own sampling source at %d Hz: perf %.2f us, "
	       "timer %.2f us (%ld signals in all)\n", (med[PAPI] - med[NONE]) * 1e6 / 2, rate,
	       (med[PERFSAMP] - med[NONE]) * 1e6 / 2, (med[TIMER] - med[NONE]) * 1e6 / 2, atomic_load(&samples));
	if (failed)
		fprintf(stderr, "bench_switch_cost: a counter could not be opened or started\n");
	return failed;
}
