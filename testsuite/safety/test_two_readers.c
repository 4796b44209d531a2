/*
 * test_two_readers.c - two threads read one running event set at once
 * (they once raced on the set's shared raw-value buffer).  Run under
 * ThreadSanitizer by the CI's TSan suite (label threads).  Ground truth:
 * each reader sees perf::TASK-CLOCK never decrease, no read exceeds the
 * value at PAPI_stop, and that value matches the counting thread's
 * CLOCK_THREAD_CPUTIME_ID.
 */
#include <papi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "tharness.h"
#include "th_sys.h"

#define READS 20000

static int set = PAPI_NULL;
static atomic_int go, done;

static unsigned long pthread_self_id(void)
{
	return (unsigned long)pthread_self();
}

struct reader {
	long long last, reads, bad;
};

static void *reader(void *arg)
{
	struct reader *r = arg;

	while (!atomic_load(&go))
		;
	for (int i = 0; i < READS; i++) {
		long long v = 0;

		if (PAPI_read(set, &v) != PAPI_OK || v < r->last)
			r->bad++;
		r->last = v;
		r->reads++;
	}
	atomic_fetch_add(&done, 1);
	return NULL;
}

int main(void)
{
	struct reader r[2] = { { 0 } };
	pthread_t th[2];
	long long v = 0, c0, c1, extra;
	struct th_clock around;
	volatile double x = 0;

	th_need_sw_perf();
	TH_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	TH_EQ(PAPI_thread_init(pthread_self_id), PAPI_OK);
	TH_EQ(PAPI_create_eventset(&set), PAPI_OK);
	if (PAPI_add_named_event(set, "perf::TASK-CLOCK") != PAPI_OK)
		TH_FATAL("perf::TASK-CLOCK cannot be added though the kernel counts it");
	for (int i = 0; i < 2; i++)
		TH_EQ(pthread_create(&th[i], NULL, reader, &r[i]), 0);
	around = th_clock_now();
	c0 = th_thread_cpu_ns();
	TH_EQ(PAPI_start(set), PAPI_OK);
	atomic_store(&go, 1);
	while (atomic_load(&done) < 2)   /* the counted thread works meanwhile */
		x += 1.0;
	for (int i = 0; i < 20000000; i++)
		x += 1.0;
	TH_EQ(PAPI_stop(set, &v), PAPI_OK);
	c1 = th_thread_cpu_ns();
	for (int i = 0; i < 2; i++) {
		TH_EQ(pthread_join(th[i], NULL), 0);
		TH_EQ(r[i].reads, READS);
		TH_EQ(r[i].bad, 0);
		TH_CHECK(r[i].last <= v);
	}
	printf("task-clock %lld ns, thread CPU %lld ns, last reads %lld %lld (work %g)\n", v, c1 - c0,
	       r[0].last, r[1].last, (double)x);
	/* the counting lies inside [c0, c1]: at most that CPU time plus this
	 * thread's own extra time (steal: th_clock.h); at least 80% of it
	 * (PAPI_start/stop are outside the counting, slow under TSan) */
	extra = th_clock_extra_ns(&around);
	TH_CHECK((double)v >= 0.8 * (double)(c1 - c0));
	TH_CHECK((double)v <= (double)(c1 - c0 + extra) + th_clock_slack((double)(c1 - c0 + extra)));
	TH_EQ(PAPI_cleanup_eventset(set), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&set), PAPI_OK);
	PAPI_shutdown();
	return th_done();
}
