/*
 * rt.h - internal interface of the measurement runtime (libtally-preload.so).
 *
 * The runtime owns a private copy of the core library (linked from
 * libtally_internal.a and hidden by the preload's version script), so its
 * per-thread event sets never meet the application's own PAPI sets: an
 * application calling PAPI_start under tally-run talks to libtally.so and
 * keeps its PAPI semantics (one running set per thread and component in
 * *its* instance), while the runtime's sets live in the other instance.
 *
 * The records it keeps (the process, its threads and their region trees)
 * are defined below it, in output/out_records.h, where the writer reads
 * them.
 */
#ifndef TALLY_RT_H
#define TALLY_RT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "runtime/rt_clock.h"
#include "runtime/rt_config.h"
#include "runtime/rt_log.h"
#include "runtime/rt_job.h"
#include "runtime/rt_proc.h"
#include "output/out_records.h"

/* Calling thread's record, created (and its event set started) on first
 * use, which starts the runtime (rt_state.c); NULL when the runtime is off
 * or out of memory. */
struct tly_rt_thread *tly_rt_self_slow(void);
struct tly_rt_thread *tly_rt_self_kind(enum tly_rt_thread_kind kind);
/* initial-exec: the MPI wrappers and regions look this up on every call,
 * and the general-dynamic model costs a __tls_get_addr call each time */
extern _Thread_local struct tly_rt_thread *tly_rt_self_tls __attribute__((tls_model("initial-exec")));

static inline struct tly_rt_thread *tly_rt_self(void)
{
	struct tly_rt_thread *t = tly_rt_self_tls;

	/* every wrapper comes here first: the safe point of a dying process */
	if (__builtin_expect(atomic_load_explicit(&tly_rt_dying, memory_order_relaxed) != 0, 0))
		tly_rt_safe_point();

	return t ? t : tly_rt_self_slow();
}
/* Create the calling thread's record without the start-up check (used
 * while the runtime starts). */
struct tly_rt_thread *tly_rt_thread_new_self(enum tly_rt_thread_kind kind);
/* The path of node n of the thread's tree, names joined by '\x1f'. */
void tly_rt_node_path(const struct tly_rt_thread *t, int32_t n, char *buf, size_t len);
/* The same as the tables show it: names joined by " / ", without their
 * raw addresses (the passes' and the GPU's rows). */
void tly_rt_node_path_shown(const struct tly_rt_thread *t, int32_t n, char *buf, size_t len);
/* ---- process state: tly_rt_proc() (runtime/rt_proc.h; filled by the
 * start-up, rt_state.c) */
/* rt_thread.c: */
void tly_rt_stop_all(void);       /* freeze every thread's root values */
int64_t tly_rt_process_cpu_ns(void);  /* user + system time of all threads */
int64_t tly_rt_thread_cpu_ns(void);   /* the calling thread's CPU time */
/* rt_state.c, the start-up: */
/* Start the runtime once (when the preload library loads) and say whether
 * it measures.  Called back from inside the start-up it answers 0 instead
 * of waiting for itself. */
int tly_rt_enabled(void);
/* Like tly_rt_enabled, but inside the start-up it answers what the start-up
 * has decided (for the OMPT tool, which must register while libomp starts). */
int tly_rt_will_measure(void);

#endif /* TALLY_RT_H */