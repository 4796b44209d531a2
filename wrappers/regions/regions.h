/*
 * regions.h - the region tree of a thread (regions/region.c): what every
 * producer (user regions, MPI, OpenMP, NVTX) records into.
 */
#ifndef TALLY_REGIONS_H
#define TALLY_REGIONS_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/rt.h"


/* Region enter/exit by name in the calling thread.  `name` must stay valid
 * while the call runs (it is copied when a node is created). */
int tly_rt_enter(struct tly_rt_thread *t, const char *name, int kind, int counters);
int tly_rt_exit(struct tly_rt_thread *t);
/* The same with the time stamp the caller already took (MPI wrappers share
 * theirs with the region); a negative time stamp: take one. */
int tly_rt_enter_at(struct tly_rt_thread *t, const char *name, int kind, int counters, int64_t t0);
int tly_rt_exit_at(struct tly_rt_thread *t, int64_t now);
/*
 * A borrowed frame: a thread with no region of its own enters the path
 * of the region open in the process (its names below the root, outermost
 * first) before a call it makes there, so the call lands under that path
 * (NCCL's ranges on PyTorch's autograd thread: nvtx/nvtx_borrow.c).  The
 * frame is timed and counted like any, so the thread's values add up,
 * but its exit adds no visit; the follower (trace) sees it, no rotation
 * does, and the parts (rt_parts.h region_change) see its exit but not its
 * entry: the caller's own frame follows at once.  Left with tly_rt_exit.
 */
int tly_rt_enter_borrowed(struct tly_rt_thread *t, const char *name, int kind, int counters);
/* Exit the innermost open region called `name` (closing those inside). */
int tly_rt_exit_named(struct tly_rt_thread *t, const char *name);
/* Exit the innermost open region of `kind` and those inside it; nothing
 * when none is open (OpenMP: ends of nested constructs may come late). */
void tly_rt_exit_kind(struct tly_rt_thread *t, int kind);
/* Stop the thread's counters and close its open regions (thread end). */
void tly_rt_thread_stop(struct tly_rt_thread *t);

/*
 * The follower of every enter and leave (trace/ registers one when
 * TALLY_TRACE is on): called on the thread itself, after the frame is
 * pushed (enter: node = the new top) or popped (leave: node = the frame
 * left, still at t->stack[t->depth]), with the time stamp the region
 * used and the thread's counter values read there (t->nev of them; NULL
 * when none were read).  Regions the tree does not record (beyond
 * TALLY_MAX_DEPTH) are not followed.  Set once, at start-up, before it can
 * be called.
 */
typedef void (*tly_region_follow_fn)(struct tly_rt_thread *t, int32_t node, int64_t ts, int enter,
				     const long long *v);
void tly_region_follow(tly_region_follow_fn fn);
/*
 * Region rotation (passes/pass_rotate.c, registered by passes/ at start-up
 * when it rotates, before a region can be entered): enter is called after
 * the frame of node is pushed, before the follower; leave before the frame
 * left is folded.  Regions the tree does not record are not rotated.
 */
typedef void (*tly_region_rotate_fn)(struct tly_rt_thread *t, int32_t node);
void tly_region_rotate(tly_region_rotate_fn enter, tly_region_rotate_fn leave);
/*
 * The process's region (gpu/gpu_scope.c registers it at its start, when
 * TALLY_CUDA_SCOPE=process): `on` starts following it; `path` gives, for
 * a thread at its root while a region is open in another thread, the
 * names and kinds of that region's path below the root (names stay
 * valid: nodes are never freed), else 0.  tly_region_scope_want: a
 * producer needs it (nvtx/: NCCL's domain appeared); `on` runs then, or
 * at registration when that came first.
 */
typedef void (*tly_region_scope_on_fn)(void);
typedef int (*tly_region_scope_path_fn)(const struct tly_rt_thread *t, const char **names, int32_t *kinds,
					int max);
void tly_region_scope(tly_region_scope_on_fn on, tly_region_scope_path_fn path);
void tly_region_scope_want(void);
extern struct tly_region_hooks {
	tly_region_follow_fn follow;
	tly_region_rotate_fn rotate_enter, rotate_leave;
	tly_region_scope_on_fn scope_on;
	tly_region_scope_path_fn scope_path;
	int scope_wanted;
} tly_region_hooks;

static inline void tly_region_note(struct tly_rt_thread *t, int32_t node, int64_t ts, int enter,
				   const long long *v)
{
	tly_region_follow_fn fn = __atomic_load_n(&tly_region_hooks.follow, __ATOMIC_RELAXED);

	if (fn)
		fn(t, node, ts, enter, v);
}

#endif /* TALLY_REGIONS_H */
