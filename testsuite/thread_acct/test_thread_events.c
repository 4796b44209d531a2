/*
 * test_thread_events.c - the thread component's events against ground
 * truth: fresh pages touched (one fault each), sleeps (one voluntary
 * switch each), the thread's CPU clock around the counting; read by the
 * thread, by another thread while it runs, through PAPI_attach, in a
 * forked child; and, the reason the component exists, no perf event open
 * while its set counts.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"
#include "tharness.h"

enum { CPU, PF, CS, VCS, NE };
static const char *const names[NE] = { "thread:::CPU-TIME", "thread:::PAGE-FAULTS", "thread:::CONTEXT-SWITCHES",
				       "thread:::VOLUNTARY-SWITCHES" };

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void ru(long long *faults, long long *vcs)
{
	struct rusage r;

	getrusage(RUSAGE_THREAD, &r);
	*faults = r.ru_minflt + r.ru_majflt;
	*vcs = r.ru_nvcsw;
}

static int make_set(void)
{
	int es = PAPI_NULL;

	if (PAPI_create_eventset(&es) != PAPI_OK)
		TH_FATAL("PAPI_create_eventset");
	for (int i = 0; i < NE; i++)
		if (PAPI_add_named_event(es, names[i]) != PAPI_OK) {
			fprintf(stderr, "%s: %s\n", names[i], PAPI_strerror(PAPI_ENOEVNT));
			TH_FATAL("adding a thread event");
		}
	return es;
}

/* perf events this process has open (anon_inode:[perf_event] descriptors) */
static int perf_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		TH_FATAL("opendir /proc/self/fd");
	while ((e = readdir(d))) {
		char p[300], t[256];
		ssize_t k;

		snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
		k = readlink(p, t, sizeof t - 1);
		if (k > 0) {
			t[k] = '\0';
			n += strstr(t, "perf_event") != NULL;
		}
	}
	closedir(d);
	return n;
}

#define PAGES 3000
static volatile double sink;

static void spin(long long ns)
{
	long long t0 = cpu_ns();

	while (cpu_ns() - t0 < ns)
		for (int i = 0; i < 1000; i++)
			sink += i * 0.5;
}

static void touch(char *p, int pages)
{
	for (int i = 0; i < pages; i++)
		p[(size_t)i * 4096] = 1;
}

static void sleeps(int n)
{
	struct timespec ts = { 0, 200000 };

	for (int i = 0; i < n; i++)
		nanosleep(&ts, NULL);
}

/* On the thread itself: every value between the ground truth inside the
 * counting and the kernel's count around it. */
static void own_thread(void)
{
	long long v[NE], f0, f1, s0, s1, c0, c1, ci0, ci1;
	char *mem = mmap(NULL, (size_t)PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int es = make_set();

	if (mem == MAP_FAILED)
		TH_FATAL("mmap");
	ru(&f0, &s0);
	c0 = cpu_ns();
	TH_EQ(PAPI_start(es), PAPI_OK);
	TH_EQ(perf_fds(), 0);
	ci0 = cpu_ns();
	touch(mem, PAGES);
	sleeps(50);
	spin(30000000);
	ci1 = cpu_ns();
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	c1 = cpu_ns();
	ru(&f1, &s1);
	printf("own thread: CPU-TIME %lld ns (inside %lld, around %lld), PAGE-FAULTS %lld (touched %d, around %lld), "
	       "CONTEXT-SWITCHES %lld, VOLUNTARY %lld (50 sleeps, around %lld)\n",
	       v[CPU], ci1 - ci0, c1 - c0, v[PF], PAGES, f1 - f0, v[CS], v[VCS], s1 - s0);
	TH_CHECK(v[CPU] >= ci1 - ci0 && v[CPU] <= c1 - c0);
	TH_CHECK(v[PF] >= PAGES && v[PF] <= f1 - f0);
	TH_CHECK(v[VCS] >= 50 && v[VCS] <= s1 - s0);
	TH_CHECK(v[CS] >= v[VCS]);
	/* reset: counts from the reset */
	TH_EQ(PAPI_start(es), PAPI_OK);
	spin(5000000);
	TH_EQ(PAPI_reset(es), PAPI_OK);
	ci0 = cpu_ns();
	spin(10000000);
	ci1 = cpu_ns();
	TH_EQ(PAPI_read(es, v), PAPI_OK);
	c1 = cpu_ns();
	TH_CHECK(v[CPU] >= ci1 - ci0 && v[CPU] <= c1 - ci0 + 1000000);
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	munmap(mem, (size_t)PAGES * 4096);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
}

/* A worker counts itself; the main thread reads its set while it runs
 * (the runtime's stop at exit does), and through PAPI_attach. */
static struct {
	int es;
	atomic_int phase;
	long tid;
	long long cpu_before_start, cpu_after_start;   /* the worker's CPU clock around its PAPI_start */
	long long faults_before_start, faults_after_work; /* the kernel's count of its faults (getrusage) */
	char *mem;
} w;

/* Another thread's CPU clock, read by glibc (the ground truth). */
static long long clock_of(pthread_t th)
{
	clockid_t id;
	struct timespec ts;

	if (pthread_getcpuclockid(th, &id) || clock_gettime(id, &ts))
		TH_FATAL("the other thread's CPU clock");
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *worker(void *arg)
{
	(void)arg;
	long long vcs;

	w.tid = syscall(SYS_gettid);
	w.es = make_set();
	ru(&w.faults_before_start, &vcs);
	w.cpu_before_start = cpu_ns();
	if (PAPI_start(w.es) != PAPI_OK)
		TH_FATAL("worker PAPI_start");
	w.cpu_after_start = cpu_ns();
	touch(w.mem, PAGES);
	spin(20000000);
	ru(&w.faults_after_work, &vcs);
	atomic_store(&w.phase, 1);
	while (atomic_load(&w.phase) == 1)
		sleeps(1);
	return NULL;
}

static void other_thread(void)
{
	pthread_t th;
	long long v[NE];

	w.mem = mmap(NULL, (size_t)PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w.mem == MAP_FAILED)
		TH_FATAL("mmap");
	pthread_create(&th, NULL, worker, NULL);
	while (atomic_load(&w.phase) == 0)
		sleeps(1);
	/* the worker naps in a loop now; its CPU clock read around the read
	 * nests the count: exact bounds whatever the load */
	long long r0 = clock_of(th), r1;

	TH_EQ(PAPI_read(w.es, v), PAPI_OK);
	r1 = clock_of(th);
	printf("read from another thread: CPU-TIME %lld ns (its clock since start: %lld..%lld), PAGE-FAULTS %lld "
	       "(touched %d), CONTEXT-SWITCHES %lld\n", v[CPU], r0 - w.cpu_after_start, r1 - w.cpu_before_start,
	       v[PF], PAGES, v[CS]);
	TH_CHECK(v[CPU] >= 20000000);
	TH_CHECK(v[CPU] >= r0 - w.cpu_after_start && v[CPU] <= r1 - w.cpu_before_start);
	/* at least the fresh pages; at most the kernel's count over its work
	 * (a sanitizer's shadow pages fault too: 3 a page under TSan) and a
	 * few for its naps since */
	TH_CHECK(v[PF] >= PAGES && v[PF] <= w.faults_after_work - w.faults_before_start + 50);
	TH_CHECK(v[CS] >= 1);
	atomic_store(&w.phase, 2);
	pthread_join(th, NULL);
	/* pthread_join returns when the kernel clears the thread's id, before
	 * it releases the task: until then its accounting is still there (and
	 * reads its final values). Wait, bounded (10 s), until the kernel says the
	 * thread is gone; then the owner is gone: a clear error, not a value */
	for (int i = 0; i < 50000 && syscall(SYS_tgkill, getpid(), (pid_t)w.tid, 0) == 0; i++)
		sleeps(1);
	TH_CHECK(syscall(SYS_tgkill, getpid(), (pid_t)w.tid, 0) == -1 && errno == ESRCH);
	TH_EQ(PAPI_read(w.es, v), PAPI_ESYS);
	munmap(w.mem, (size_t)PAGES * 4096);
}

static void *spinner(void *arg)
{
	atomic_int *stop = arg;

	w.tid = syscall(SYS_gettid);
	atomic_store(&w.phase, 1);
	while (!atomic_load(stop))
		spin(1000000);
	return NULL;
}

static void attached(void)
{
	pthread_t th;
	atomic_int stop = 0;
	long long v[NE], t0, t1;
	int es = make_set();
	struct timespec ts;

	atomic_store(&w.phase, 0);
	pthread_create(&th, NULL, spinner, &stop);
	while (!atomic_load(&w.phase))
		sleeps(1);
	TH_EQ(PAPI_attach(es, (unsigned long)w.tid), PAPI_OK);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	long long g0 = clock_of(th), g0i, g1i, g1, own0 = cpu_ns();

	TH_EQ(PAPI_start(es), PAPI_OK);
	g0i = clock_of(th);
	sleeps(200);
	g1i = clock_of(th);
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	g1 = clock_of(th);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t1 = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	printf("attached to a spinning thread: CPU-TIME %lld ns, its clock %lld..%lld ns, this thread's %lld ns, "
	       "%lld ns of wall time\n", v[CPU], g1i - g0i, g1 - g0, cpu_ns() - own0, t1 - t0);
	/* the spinner's time, nested by its own clock; not this sleeping
	 * thread's (a few ms), which it exceeds */
	TH_CHECK(v[CPU] >= g1i - g0i && v[CPU] <= g1 - g0);
	TH_CHECK(v[CPU] > 0);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
}

/* A forked child's copy counts the child's own thread, from the fork. */
static void forked(void)
{
	int es = make_set(), st = 0;
	long long v[NE];
	pid_t pid;

	TH_EQ(PAPI_start(es), PAPI_OK);
	spin(50000000);
	fflush(stdout);   /* the child's exit must not print the parent's lines again */
	pid = fork();
	if (pid == 0) {
		long long c0 = cpu_ns();
		int bad;

		spin(10000000);
		bad = PAPI_read(es, v) != PAPI_OK || v[CPU] < 10000000 || v[CPU] > cpu_ns() - c0 + 20000000;
		printf("forked child: CPU-TIME %lld ns (10 ms spun in the child, parent's 50 ms before the fork)\n",
		       v[CPU]);
		fflush(stdout);
		_exit(bad);
	}
	waitpid(pid, &st, 0);
	TH_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	TH_CHECK(v[CPU] >= 50000000);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
}

static void refused(void)
{
	int es = PAPI_NULL, code;
	PAPI_option_t opt;

	TH_EQ(PAPI_event_name_to_code("thread:::NO-SUCH", &code), PAPI_ENOEVNT);
	TH_EQ(PAPI_event_name_to_code("thread:::CPU-TIME", &code), PAPI_OK);
	PAPI_create_eventset(&es);
	TH_EQ(PAPI_add_named_event(es, "thread:::CPU-TIME"), PAPI_OK);
	memset(&opt, 0, sizeof opt);
	opt.inherit.eventset = es;
	opt.inherit.inherit = PAPI_INHERIT_ALL;
	TH_CHECK(PAPI_set_opt(PAPI_INHERIT, &opt) != PAPI_OK);
	TH_EQ(PAPI_attach(es, 1), PAPI_ECMP);  /* init's thread: another process */
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
}

int main(void)
{
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init");
	if (PAPI_thread_init((unsigned long (*)(void))pthread_self) != PAPI_OK)
		TH_FATAL("PAPI_thread_init");
	own_thread();
	other_thread();
	attached();
	forked();
	refused();
	return th_done();
}
