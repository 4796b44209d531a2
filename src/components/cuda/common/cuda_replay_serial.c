/*
 * cuda_replay_serial.c - Tally's own kernel replay (cuda_replay_own.c)
 * serialised per context.  The replay of one launch spans its launch
 * callback's entry (context synchronised, device memory saved, flush
 * queued) and exit (each further pass: memory restored, flush, the launch
 * again): a second thread launching into the same context in between
 * would run its kernel inside the first one's pass 0, have its launch
 * counted in the first kernel's range and its own entry overwrite the
 * saved memory.  So a context replayed by Tally takes a lock from a
 * launch's entry to its exit: launches of several threads into one
 * context are replayed one at a time (they were synchronised each
 * already); other contexts, and contexts CUPTI replays, are not touched.
 * The lock is taken before the range lock (cuda_range_full.c), so a
 * thread waiting for it holds nothing another needs; it is waited for at
 * most SERIAL_WAIT_S (an exit callback that never came: said once, and
 * the launch goes on unserialised: never a hang).
 */
#include "cuda_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define SERIAL_CTX_MAX 64   /* contexts replayed by Tally in one process */
#define SERIAL_WAIT_S 120

static struct {
	pthread_mutex_t table;
	CUcontext ctx[SERIAL_CTX_MAX];
	pthread_mutex_t lock[SERIAL_CTX_MAX];
	atomic_int n;   /* entries published (ctx and lock set before) */
} serial = { .table = PTHREAD_MUTEX_INITIALIZER };

static _Thread_local pthread_mutex_t *held;   /* taken at this thread's launch entry */

void tly_cu_own_serial_add(CUcontext ctx)
{
	int n;

	pthread_mutex_lock(&serial.table);
	n = atomic_load(&serial.n);
	for (int i = 0; i < n; i++)
		if (serial.ctx[i] == ctx) {
			pthread_mutex_unlock(&serial.table);
			return;
		}
	if (n < SERIAL_CTX_MAX && pthread_mutex_init(&serial.lock[n], NULL) == 0) {
		serial.ctx[n] = ctx;
		atomic_store(&serial.n, n + 1);
	}
	pthread_mutex_unlock(&serial.table);
}

static pthread_mutex_t *lock_of(CUcontext ctx)
{
	int n = atomic_load_explicit(&serial.n, memory_order_acquire);

	for (int i = 0; i < n; i++)
		if (serial.ctx[i] == ctx)
			return &serial.lock[i];
	return NULL;
}

void tly_cu_own_serial_enter(CUcontext ctx)
{
	static atomic_int said;
	pthread_mutex_t *l;
	struct timespec until;

	tly_cu_own_serial_leave();   /* an entry whose exit never came */
	if (!atomic_load_explicit(&serial.n, memory_order_relaxed) || !(l = lock_of(ctx)))
		return;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += SERIAL_WAIT_S;
	if (pthread_mutex_timedlock(l, &until) == 0) {
		held = l;
		return;
	}
	if (!atomic_exchange(&said, 1))
		fprintf(stderr, "tally: cuda: a kernel launch waited %d s for another thread's kernel replay in the "
			"same context; launches go on without waiting (their GPU values may mix)\n", SERIAL_WAIT_S);
}

void tly_cu_own_serial_leave(void)
{
	if (held) {
		pthread_mutex_unlock(held);
		held = NULL;
	}
}
