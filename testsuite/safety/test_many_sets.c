/*
 * test_many_sets.c - 2,000 event sets of one perf::TASK-CLOCK each, each
 * started and stopped around a spin, in the library alone.  The kernel
 * walks every open perf event at each enable and disable, so idle sets
 * beyond a cap give their descriptors back (pe_park.c): the process's
 * open descriptors stay bounded (counted in /proc/self/fd) while each
 * set counts what it did: its task-clock within the thread's CPU time of
 * its own window (ground truth: CLOCK_THREAD_CPUTIME_ID), on its first
 * start and again after being parked, and PAPI_read of a stopped parked
 * set gives the values its stop returned.  It skips only where the kernel
 * counts nothing; an init or add failure fails (safety_many_sets_planted
 * adds an event that does not exist).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "papi.h"
#include "th_clock.h"
#include "th_sys.h"
#include "tharness.h"

#define NSETS 2000
#define CAP_FDS 200   /* the park cap (128) and the harness's own, with room */

static long open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	long n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n - 3;   /* ".", ".." and the directory's own descriptor */
}

static long long thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* One window of set es around a 50 us spin: its count, the thread's CPU
 * time around the start..stop (which holds the count), and the thread's
 * own extra time over it (a context switch charged to task-clock but not
 * yet to the CPU clock: th_clock.h). */
static int window(int es, long long *count, long long *cpu, long long *extra)
{
	struct th_clock around = th_clock_now();
	long long c0 = thread_cpu_ns(), v = 0;
	int rc = PAPI_start(es);

	th_spin_rounds(2000);
	if (rc == PAPI_OK)
		rc = PAPI_stop(es, &v);
	*cpu = thread_cpu_ns() - c0;
	*extra = th_clock_extra_ns(&around);
	*count = v;
	return rc;
}

int main(int argc, char **argv)
{
	/* argv[1]: another event, for the planted add failure (CMakeLists.txt) */
	const char *event = argc > 1 ? argv[1] : "perf::TASK-CLOCK";
	static int es[NSETS];
	long most = 0, bad = 0, before = open_fds();
	struct rlimit rl;

	/* the one skip: the kernel counts nothing here; where it counts, a
	 * failure to initialise or to add is Tally's (issue 46) */
	th_need_sw_perf();
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("the library did not initialise");
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (int i = 0; i < NSETS; i++) {
		es[i] = PAPI_NULL;
		TH_EQ(PAPI_create_eventset(&es[i]), PAPI_OK);
		if (PAPI_add_named_event(es[i], event) != PAPI_OK) {
			printf("set %d of %d: %s could not be added\n", i, NSETS, event);
			TH_FATAL("an add failed");
		}
		most = open_fds() > most ? open_fds() : most;
	}
	for (int round = 0; round < 2; round++)   /* round 1: every set was parked in between */
		for (int i = 0; i < NSETS; i++) {
			long long count, cpu, extra, again;
			int out;

			TH_EQ(window(es[i], &count, &cpu, &extra), PAPI_OK);
			/* task-clock counts this thread's CPU time inside the window */
			out = count <= 0 || count > cpu + extra + 50000;
			TH_EQ(PAPI_read(es[i], &again), PAPI_OK);
			out += again != count;
			if (out && !bad)
				printf("set %d, round %d: count %lld, read again %lld, CPU time %lld ns, own extra %lld ns\n",
				       i, round, count, again, cpu, extra);
			bad += out;
			if (i % 97 == 0)
				most = open_fds() > most ? open_fds() : most;
		}
	printf("open descriptors: %ld before, at most %ld with %d sets\n", before, most, NSETS);
	TH_EQ(bad, 0);
	TH_CHECK(most - before < CAP_FDS);
	for (int i = 0; i < NSETS; i++) {
		TH_EQ(PAPI_cleanup_eventset(es[i]), PAPI_OK);
		TH_EQ(PAPI_destroy_eventset(&es[i]), PAPI_OK);
	}
	TH_CHECK(open_fds() <= before + 1);
	return th_done();
}
