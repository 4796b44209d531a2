/*
 * test_pmu_ovf_threads.c - hardware overflow on PAPI_TOT_CYC in two
 * threads at once.  Each thread runs its own set with a threshold of
 * 10^6 cycles over a loop of known length (6*10^7 and 10^8 instructions,
 * = cycles under QEMU -icount): its handler runs 60 and 100 times (one
 * more or less for the boundaries), only in that thread, and always
 * names that thread's own event set.
 */
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pmu_util.h"

#define THRESHOLD 1000000

struct job {
	uint64_t n;
	int set, rc;
	pid_t tid;
	long calls, foreign;
};

static _Thread_local struct job *mine;
static pthread_barrier_t barrier;

static void handler(int set, void *pc, long long vec, void *ctx)
{
	(void)pc; (void)ctx;
	if (!mine)
		return;
	if (set != mine->set || vec != 1 || (pid_t)syscall(SYS_gettid) != mine->tid)
		mine->foreign++;
	else
		mine->calls++;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	long long v;

	mine = j;
	j->tid = (pid_t)syscall(SYS_gettid);
	j->set = PAPI_NULL;
	j->rc = PAPI_create_eventset(&j->set);
	if (!j->rc) j->rc = PAPI_add_event(j->set, PAPI_TOT_CYC);
	if (!j->rc) j->rc = PAPI_overflow(j->set, PAPI_TOT_CYC, THRESHOLD, 0, handler);
	pthread_barrier_wait(&barrier);
	if (!j->rc) j->rc = pmu_measure(j->set, j->n, &v);
	PAPI_overflow(j->set, PAPI_TOT_CYC, 0, 0, handler);
	PAPI_cleanup_eventset(j->set);
	PAPI_destroy_eventset(&j->set);
	PAPI_unregister_thread();
	return NULL;
}

int main(void)
{
	struct job jobs[2] = { { .n = 30000000 }, { .n = 50000000 } };
	pthread_t t[2];

	pmu_require();
	TH_EQ(PAPI_thread_init(pthread_self), PAPI_OK);
	pthread_barrier_init(&barrier, NULL, 2);
	for (int i = 0; i < 2; i++)
		TH_EQ(pthread_create(&t[i], NULL, worker, &jobs[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&barrier);
	for (int i = 0; i < 2; i++) {
		long want = (long)(PMU_LOOP_INS(jobs[i].n) / THRESHOLD);

		printf("thread %d: %ld calls (want %ld), %ld foreign\n", i, jobs[i].calls, want, jobs[i].foreign);
		TH_EQ(jobs[i].rc, PAPI_OK);
		TH_CHECK(jobs[i].calls >= want - 1 && jobs[i].calls <= want + 1);
		TH_EQ(jobs[i].foreign, 0);
	}
	PAPI_shutdown();
	return th_done();
}
