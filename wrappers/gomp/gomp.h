/*
 * gomp.h - GCC OpenMP (libgomp) measured inside libgomp: the preload
 * library defines libgomp's GOMP_* entry points, records the regions and
 * forwards each call to libgomp's own definition.
 *
 * gomp_real.c   finding libgomp's definitions, whether to measure, thread end
 * gomp_parallel.c  parallel regions (GOMP_parallel and its variants, the
 *               old GOMP_parallel_start/end), the outlined-function trampoline
 * gomp_sync.c   barriers, critical sections, single
 * gomp_loop.c   worksharing loops and sections (starts and ends; the plain
 *               starts generated from gomp_spec.txt by gen_gomp.py)
 */
#ifndef TALLY_GOMP_H
#define TALLY_GOMP_H

#include <stdatomic.h>

#include "runtime/rt.h"

#define TALLY_GOMP_EXPORT __attribute__((visibility("default")))

/* libgomp's definition of `name` (what the program's call would have
 * reached without Tally); aborts with one line when there is none, since
 * the program cannot go on without its OpenMP runtime. */
void *tly_gomp_real(const char *name);

/* A wrapper's cache of its libgomp entry point (one per wrapper). */
typedef void *_Atomic tly_gomp_slot;
static inline void *tly_gomp_fn(tly_gomp_slot *slot, const char *name)
{
	void *f = atomic_load_explicit(slot, memory_order_relaxed);

	if (!f) {
		f = tly_gomp_real(name);
		atomic_store_explicit(slot, f, memory_order_relaxed);
	}
	return f;
}
/* the next definition of `name`, as a pointer of `type`, cached in `slot` */
#define GOMP_NEXT(type, slot, name) ((type)tly_gomp_fn(&(slot), (name)))
/* the program's call of the wrapper: what names the construct */
#define GOMP_CALLER() __builtin_return_address(0)

/* The calling thread's record when GOMP calls are measured, else NULL
 * (runtime off, TALLY_OMPT=no, or LLVM's libomp below: the OMPT tool
 * measures then).  Creates the record of a new OpenMP thread (kind 1),
 * whose end folds it. */
struct tly_rt_thread *tly_gomp_thread(void);

/* TALLY_OMP_COUNTERS: read the counters at OpenMP region boundaries */
int tly_gomp_counters(void);

/* The parallel regions the calling thread is in (as a member of their
 * team), kept by gomp_parallel.c.  A barrier or critical section outside
 * every region (a team of one: nothing to wait for) is not recorded. */
extern _Thread_local int tly_gomp_in_team __attribute__((tls_model("initial-exec")));
/* The size of the innermost team the calling thread is in (0 outside
 * every region), and the wait of a team of one, where no thread ever
 * waits: not recorded, counted in t->waits_skipped (the ranks table's
 * waits_skipped).  tly_gomp_waits(t) answers 1 when a wait of the calling
 * thread is worth a region, and counts the others. */
extern _Thread_local int tly_gomp_team_size __attribute__((tls_model("initial-exec")));
int tly_gomp_num_threads(void);
int tly_gomp_waits(struct tly_rt_thread *t);

/* A frame of one construct on one thread: where the stack stood before it
 * was entered, so its end closes exactly what it opened. */
struct tly_gomp_mark {
	int depth, truncated;
};
void tly_gomp_enter(struct tly_rt_thread *t, struct tly_gomp_mark *m, const char *name, int kind);
void tly_gomp_leave(struct tly_rt_thread *t, const struct tly_gomp_mark *m);

#endif /* TALLY_GOMP_H */
