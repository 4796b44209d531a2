/*
 * gpu_scope.c - the region a kernel launch is attributed to.  NVTX ranges
 * and Tally regions belong to the thread that opened them, but frameworks
 * launch from worker threads that open none: PyTorch's autograd thread
 * launches the backward kernels while the main thread sits in its
 * 'backward' range.  With TALLY_CUDA_SCOPE=process (the default) a launch
 * from a thread with no open region of its own is attributed to the
 * region open in the process -- the innermost region of the thread that
 * last entered or left one while inside a region (as Caliper's
 * process-scope attributes do); the launching thread stays recorded in
 * the row.  TALLY_CUDA_SCOPE=thread keeps the per-thread rule: such a
 * launch stays at its thread's root, '(thread)'.
 */
#include "gpu/gpu_scope.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

static struct {
	pthread_mutex_t lock;
	atomic_int on;
	const struct tly_rt_thread *t;   /* the thread whose region is the process's, or NULL */
	int32_t node;
} sc = { .lock = PTHREAD_MUTEX_INITIALIZER };

void tly_gpu_scope_start(void)
{
	atomic_store(&sc.on, strcmp(tly_rt_proc()->opt.raw.cuda_scope, "thread") != 0);
}

void tly_gpu_scope_note(const struct tly_rt_thread *t)
{
	if (!t || !atomic_load_explicit(&sc.on, memory_order_relaxed))
		return;
	pthread_mutex_lock(&sc.lock);
	if (t->depth > 1) {
		sc.t = t;
		sc.node = t->stack[t->depth - 1].node;
	} else if (sc.t == t) {
		sc.t = NULL;   /* back at its root: no region open in the process */
	}
	pthread_mutex_unlock(&sc.lock);
}

void tly_gpu_scope_of(const struct tly_rt_thread *t, const struct tly_rt_thread **pt, int32_t *node)
{
	*pt = t;
	*node = t->depth ? t->stack[t->depth - 1].node : 0;
	if (t->depth > 1 || !atomic_load_explicit(&sc.on, memory_order_relaxed))
		return;
	pthread_mutex_lock(&sc.lock);
	if (sc.t) {
		*pt = sc.t;
		*node = sc.node;
	}
	pthread_mutex_unlock(&sc.lock);
}

int tly_gpu_scope_elsewhere(const struct tly_rt_thread *t)
{
	int r;

	if (t->depth > 1 || !atomic_load_explicit(&sc.on, memory_order_relaxed))
		return 0;
	pthread_mutex_lock(&sc.lock);
	r = sc.t && sc.t != t;
	pthread_mutex_unlock(&sc.lock);
	return r;
}
