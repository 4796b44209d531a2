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
 *
 * The same process scope places NCCL's calls (nvtx/nvtx_borrow.c): the
 * path of the process's region is kept with it (names and kinds, copied
 * at each change), and a thread at its root enters that path as borrowed
 * frames (regions.h) before NCCL's range.  A thread whose open regions
 * sit on borrowed frames never becomes the process's region itself: an
 * all-reduce on the autograd thread leaves the process in 'backward'.
 * Followed with GPU metrics (tly_gpu_scope_start) or once NCCL's NVTX
 * domain appears (tly_region_scope_want), not otherwise: each region
 * change takes the lock.
 */
#include "gpu/gpu_scope.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "regions/regions.h"
#include "runtime/rt_parts.h"

#define SCOPE_PATH_MAX 32   /* a deeper region's path is cut to its outermost names */

static struct {
	pthread_mutex_t lock;
	atomic_int on;
	const struct tly_rt_thread *t;   /* the thread whose region is the process's, or NULL */
	int32_t node;
	int npath;                       /* its path below the root, outermost first */
	const char *names[SCOPE_PATH_MAX];
	int32_t kinds[SCOPE_PATH_MAX];
} sc = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int process_scope(void)
{
	return strcmp(tly_rt_proc()->opt.raw.cuda_scope, "thread") != 0;
}

void tly_gpu_scope_start(void)
{
	int on = process_scope();

	if (on)
		tly_rt_parts_watch_regions();
	atomic_store(&sc.on, on);
}

static void scope_on(void)
{
	if (process_scope()) {
		tly_rt_parts_watch_regions();
		atomic_store(&sc.on, 1);
	}
}

/* The process's region for t at its root (regions.h, scope_path). */
static int scope_path(const struct tly_rt_thread *t, const char **names, int32_t *kinds, int max)
{
	int n = 0;

	if (t->depth > 1 || !atomic_load_explicit(&sc.on, memory_order_relaxed))
		return 0;
	pthread_mutex_lock(&sc.lock);
	if (sc.t && sc.t != t)
		for (; n < sc.npath && n < max; n++) {
			names[n] = sc.names[n];
			kinds[n] = sc.kinds[n];
		}
	pthread_mutex_unlock(&sc.lock);
	return n;
}

void tly_gpu_scope_register(void)
{
	tly_region_scope(scope_on, scope_path);
}

void tly_gpu_scope_note(const struct tly_rt_thread *t)
{
	if (!t || !atomic_load_explicit(&sc.on, memory_order_relaxed))
		return;
	if (t->depth > 1 && t->stack[1].borrowed)
		return;   /* in the process's region already: not a region of its own */
	pthread_mutex_lock(&sc.lock);
	if (t->depth > 1) {
		sc.t = t;
		sc.node = t->stack[t->depth - 1].node;
		sc.npath = 0;
		for (int i = 1; i < t->depth && sc.npath < SCOPE_PATH_MAX; i++, sc.npath++) {
			sc.names[sc.npath] = t->nodes[t->stack[i].node].name;
			sc.kinds[sc.npath] = t->nodes[t->stack[i].node].kind;
		}
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
