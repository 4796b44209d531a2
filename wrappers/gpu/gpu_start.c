/*
 * gpu_start.c - the GPU profiler's start off the program's critical path
 * (TALLY_CUDA_START=background; default inline).  The first range profiler
 * Start on a context takes about 1 s (the driver sets the context up for
 * profiling); run in a thread of its own, it overlaps the program's own
 * start-up (imports, data loading, its CUDA context).  A kernel launched
 * before the session runs waits for it at the launch (so it is
 * profiled); the wait is bounded, so a start that never ends costs at
 * most TLY_GPU_START_WAIT_S seconds, never a hang.
 */
#include "gpu/gpu_start.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define TLY_GPU_START_WAIT_S 60

static struct {
	pthread_mutex_t lock;
	pthread_cond_t done;
	pthread_t th;
	atomic_int pending;   /* started and not yet done */
	int joinable;
	void (*fn)(void *);
	void *arg;
} st = { .lock = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER };

static void *run(void *unused)
{
	(void)unused;
	st.fn(st.arg);
	pthread_mutex_lock(&st.lock);
	atomic_store(&st.pending, 0);
	pthread_cond_broadcast(&st.done);
	pthread_mutex_unlock(&st.lock);
	return NULL;
}

int tly_gpu_start_background(void (*fn)(void *), void *arg)
{
	int rc;

	st.fn = fn;
	st.arg = arg;
	atomic_store(&st.pending, 1);
	rc = pthread_create(&st.th, NULL, run, NULL);
	if (rc != 0) {
		atomic_store(&st.pending, 0);
		return -1;
	}
	st.joinable = 1;
	return 0;
}

int tly_gpu_start_wait(void)
{
	struct timespec until;
	int rc = 0;

	if (!atomic_load_explicit(&st.pending, memory_order_acquire) || pthread_equal(pthread_self(), st.th))
		return 0;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += TLY_GPU_START_WAIT_S;
	pthread_mutex_lock(&st.lock);
	while (atomic_load(&st.pending) && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&st.done, &st.lock, &until);
	pthread_mutex_unlock(&st.lock);
	return rc == ETIMEDOUT ? -1 : 0;
}

void tly_gpu_start_join(void)
{
	if (tly_gpu_start_wait() == 0 && st.joinable && !pthread_equal(pthread_self(), st.th)) {
		pthread_join(st.th, NULL);
		st.joinable = 0;
	}
}
