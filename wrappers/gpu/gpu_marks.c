/*
 * gpu_marks.c - GPU metrics per region (TALLY_CUDA_GRANULARITY=region).
 * The cuda component runs one range profiler session in ranges mode
 * (UserRange: kernels are not serialised); ranges are named "r<k>", mark
 * k being (thread, its innermost region, launches seen before it).
 *
 * A region change of any thread only notes the region wanted; the next
 * kernel launch (any thread's, at its entry, before the kernel is
 * submitted) ends the open range and starts one for that region, unless
 * it is the open range's own.  So ranges are the spans that launched
 * kernels, and a region left and entered again with no launch between
 * keeps its range: a loop of steps at TALLY_CUDA_REGION_DEPTH=1 is one
 * range, not a CUPTI pop and push per step (1.3-1.5 ms each on the H100).
 * A change while the open range has no launch yet rewrites that mark
 * (no CUPTI call either).  TALLY_CUDA_REGION_DEPTH = L > 0: regions
 * deeper than level L are folded into their level-L ancestor (a change
 * below it starts no range).  Ranges belong to the context, not to a
 * thread: a kernel launched by another thread during a range counts for
 * the region of the thread that opened the range; under process scope
 * (gpu_scope.c) a thread at its root starts no range while another
 * thread's region is open.
 */
#include "gpu/gpu_marks.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "tally_gpu.h"
#include "gpu/gpu_scope.h"
#include "gpu/gpu_state.h"
#include "runtime/rt_parts.h"

struct mark {
	const struct tly_rt_thread *t;
	int32_t node;
	int64_t nl0;          /* launches recorded before the range */
};

static atomic_int marks_on, max_depth, pending;
static struct {
	pthread_mutex_t lock;
	struct mark *m;
	int64_t n, cap;
	struct mark want;     /* the region of the last change (pending set) */
} mk = { .lock = PTHREAD_MUTEX_INITIALIZER };

void tly_gpu_rt_marks_on(void)
{
	atomic_store(&max_depth, atoi(tly_rt_proc()->opt.raw.cuda_region_depth));
	tly_rt_parts_watch_regions();
	atomic_store(&marks_on, 1);
}

/* The depth of the frame that names t's range (1: the root). */
static int level(const struct tly_rt_thread *t)
{
	int max = atomic_load_explicit(&max_depth, memory_order_relaxed);

	return max > 0 && t->depth > max + 1 ? max + 1 : t->depth;
}

/* A new mark for (t, node) from launch nl on; its index, or -1 without
 * memory.  mk.lock held. */
static int64_t add_locked(const struct tly_rt_thread *t, int32_t node, int64_t nl)
{
	if (mk.n == mk.cap) {
		int64_t cap = mk.cap ? 2 * mk.cap : 256;
		struct mark *m = realloc(mk.m, (size_t)cap * sizeof *m);

		if (m) {
			mk.m = m;
			mk.cap = cap;
		}
	}
	if (mk.n == mk.cap)
		return -1;
	mk.m[mk.n] = (struct mark){ .t = t, .node = node, .nl0 = nl };
	return mk.n++;
}

static void push_range(int64_t k)
{
	char name[32];

	if (k < 0)
		return;
	snprintf(name, sizeof name, "r%lld", (long long)k);
	tally_gpu_range_mark(name);
}

void tly_gpu_rt_mark(const struct tly_rt_thread *t)
{
	int64_t nl;
	int32_t node;
	int64_t k = -1;

	if (!atomic_load_explicit(&marks_on, memory_order_relaxed) || !t)
		return;
	/* a thread back at (or new in) its root while another thread has a
	 * region open: under process scope its launches count for that region,
	 * so the open range stays (PyTorch's autograd thread's first launch
	 * started a '(thread)' range inside 'backward': 13 of 320 launches) */
	if (tly_gpu_scope_elsewhere(t))
		return;
	nl = tly_gpu_state_launches();
	node = t->depth ? t->stack[level(t) - 1].node : 0;
	pthread_mutex_lock(&mk.lock);
	if (!mk.n) {                                  /* the first range, at the session's start */
		k = add_locked(t, node, nl);
	} else if (mk.m[mk.n - 1].nl0 == nl) {      /* nothing launched in the open range */
		mk.m[mk.n - 1].t = t;
		mk.m[mk.n - 1].node = node;
		atomic_store(&pending, 0);
	} else {                                      /* decided at the next launch */
		mk.want = (struct mark){ .t = t, .node = node };
		atomic_store(&pending, 1);
	}
	pthread_mutex_unlock(&mk.lock);
	push_range(k);
}

void tly_gpu_rt_mark_launch(void)
{
	int64_t nl, k = -1;

	if (!atomic_load_explicit(&pending, memory_order_acquire))
		return;
	nl = tly_gpu_state_launches();
	pthread_mutex_lock(&mk.lock);
	if (atomic_exchange(&pending, 0) && mk.n &&
	    (mk.m[mk.n - 1].t != mk.want.t || mk.m[mk.n - 1].node != mk.want.node))
		k = add_locked(mk.want.t, mk.want.node, nl);
	pthread_mutex_unlock(&mk.lock);
	push_range(k);
}

int tly_gpu_rt_mark_info(const char *name, const struct tly_rt_thread **t, int32_t *node, int64_t *launches)
{
	int64_t nl;
	char *end;
	long long k;
	int rc = -1;

	if (name[0] != 'r')
		return -1;
	k = strtoll(name + 1, &end, 10);
	if (*end || end == name + 1)
		return -1;
	nl = tly_gpu_state_launches();
	pthread_mutex_lock(&mk.lock);
	if (k >= 0 && k < mk.n) {
		*t = mk.m[k].t;
		*node = mk.m[k].node;
		*launches = (k + 1 < mk.n ? mk.m[k + 1].nl0 : nl) - mk.m[k].nl0;
		rc = 0;
	}
	pthread_mutex_unlock(&mk.lock);
	return rc;
}
