/*
 * test_pmu_threads.c - per-thread counts with two threads.
 *
 * Each thread counts its own PAPI_TOT_INS over a loop of a different,
 * known length while the other runs; each count minus the thread's own
 * measurement constant (an empty loop, same thread) must be exactly 2n:
 * nothing of the other thread may leak in.  Both threads are pinned to
 * CPU 0, so the kernel switches them on one PMU and must save and
 * restore each thread's counts: QEMU derives every vCPU's instruction
 * counter from one global instruction count, so counts of threads
 * running at the same time on different vCPUs leak into each other
 * (docs/pmuvm.md); on one CPU the truth is exact.
 */
#include <pthread.h>
#include <sched.h>

#include "pmu_util.h"

struct job {
	uint64_t n;
	long long constant, count;
	int rc;
};

static pthread_barrier_t barrier;

static void *worker(void *arg)
{
	struct job *j = arg;
	int set = PAPI_NULL;
	long long v[1], again[1];

	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	j->rc = pthread_setaffinity_np(pthread_self(), sizeof one, &one) ? PAPI_ESYS : PAPI_OK;
	if (j->rc == PAPI_OK)
		j->rc = PAPI_create_eventset(&set);
	if (j->rc == PAPI_OK)
		j->rc = PAPI_add_event(set, PAPI_TOT_INS);
	if (j->rc == PAPI_OK)
		j->rc = pmu_measure(set, 100, v); /* warm up */
	if (j->rc == PAPI_OK)
		j->rc = pmu_measure(set, 0, v);
	if (j->rc == PAPI_OK)
		j->rc = pmu_measure(set, 0, again);
	if (j->rc == PAPI_OK && again[0] != v[0])
		j->rc = PAPI_EMISC; /* the constant must be stable */
	j->constant = v[0];
	pthread_barrier_wait(&barrier); /* both loops run at the same time */
	if (j->rc == PAPI_OK)
		j->rc = pmu_measure(set, j->n, v);
	j->count = v[0];
	PAPI_cleanup_eventset(set);
	PAPI_destroy_eventset(&set);
	PAPI_unregister_thread();
	return NULL;
}

int main(void)
{
	struct job jobs[2] = { { .n = 5000000 }, { .n = 12345678 } };
	pthread_t t[2];

	pmu_require();
	TH_EQ(PAPI_thread_init(pthread_self), PAPI_OK);
	pthread_barrier_init(&barrier, NULL, 2);
	for (int i = 0; i < 2; i++)
		TH_EQ(pthread_create(&t[i], NULL, worker, &jobs[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 2; i++) {
		printf("thread %d: n=%llu PAPI_TOT_INS %lld, constant %lld\n", i, (unsigned long long)jobs[i].n,
		       jobs[i].count, jobs[i].constant);
		TH_EQ(jobs[i].rc, PAPI_OK);
		TH_EQ(jobs[i].count - jobs[i].constant, 2 * (long long)jobs[i].n);
	}
	pthread_barrier_destroy(&barrier);
	PAPI_shutdown();
	return th_done();
}
