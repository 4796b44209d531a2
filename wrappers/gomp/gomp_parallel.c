/*
 * gomp_parallel.c - GCC's parallel regions measured inside libgomp.
 *
 * GCC outlines the body of `#pragma omp parallel` into fn(data) and calls
 * GOMP_parallel(fn, data, nthreads, flags) (GOMP_parallel_loop_*,
 * GOMP_parallel_sections for the combined constructs); libgomp runs fn on
 * every thread of the team, the calling thread included, and returns when
 * all have finished.  The wrapper hands libgomp a trampoline instead of fn,
 * with the same nthreads and flags: on each thread it enters the region
 * "omp parallel @ function (file:line)" (named from the wrapper's return
 * address, the program's call, as the OMPT tool names it), runs fn, and
 * leaves.  On the thread that started the region the trampoline then
 * enters "omp barrier wait", which the wrapper closes with the region when
 * libgomp returns: the master's wait for the team at the region's end.  A
 * worker's wait at that barrier happens inside libgomp after fn returns and
 * is not measured (its region ends when its share of the work does).
 *
 * The old ABI (GCC before 4.9): GOMP_parallel_start(fn, data, n) starts the
 * team, the caller runs fn itself and calls GOMP_parallel_end.
 */
#include "gomp/gomp.h"

#include <stdbool.h>
#include <stdlib.h>

#include "regions/regions.h"
#include "runtime/rt_srcname.h"

struct team {
	void (*fn)(void *);
	void *data;
	const char *name;             /* "omp parallel @ ..." */
	const char *loop;             /* combined loop/sections: "omp loop @ ...", else NULL */
	struct tly_rt_thread *master; /* the thread that started the region */
	struct tly_gomp_mark mark;    /* the master's stack before the region */
	struct team *outer;           /* old ABI: the enclosing region of this thread */
	int outer_size;               /* old ABI: tly_gomp_team_size before it */
};

typedef void (*outlined_t)(void *);

/* old ABI: the regions a thread has started with GOMP_parallel_start */
static _Thread_local struct team *old_teams __attribute__((tls_model("initial-exec")));

static void trampoline(void *arg)
{
	struct team *tm = arg;
	struct tly_rt_thread *t = tly_gomp_thread();
	struct tly_gomp_mark m, lm;
	int master = t && t == tm->master, outer = tly_gomp_team_size;

	if (!t) {
		tm->fn(tm->data);
		return;
	}
	tly_gomp_team_size = tly_gomp_num_threads();
	tly_gomp_enter(t, master ? &tm->mark : &m, tm->name, TLY_RK_OMP_PARALLEL);
	if (tm->loop)
		tly_gomp_enter(t, &lm, tm->loop, TLY_RK_OMP_LOOP);
	tly_gomp_in_team++;
	tm->fn(tm->data);
	tly_gomp_in_team--;
	if (tm->loop)   /* unless its GOMP_loop_end_nowait closed it */
		tly_gomp_leave(t, &lm);
	if (master && tly_gomp_waits(t))
		tly_rt_enter(t, tly_rt_omp_label(TLY_RK_OMP_BARRIER), TLY_RK_OMP_BARRIER,
			     tly_gomp_counters());
	else if (!master)
		tly_gomp_leave(t, &m);
	tly_gomp_team_size = outer;
}

/* The team description for a region started by the caller at `code`;
 * 0 when the region is not measured (the call is forwarded as it is). */
static int team_init(struct team *tm, void (*fn)(void *), void *data, const void *code, int loop)
{
	tm->fn = fn;
	tm->data = data;
	tm->master = tly_gomp_thread();
	if (!tm->master) {   /* forwarded as it is; to libomp's OMPT it is the program's call */
		tly_rt_omp_forwarding(code);
		return 0;
	}
	tm->mark.depth = tm->master->depth;
	tm->mark.truncated = tm->master->truncated_depth;
	tm->name = tly_rt_omp_name(code, TLY_RK_OMP_PARALLEL);
	tm->loop = loop ? tly_rt_omp_name(code, TLY_RK_OMP_LOOP) : NULL;
	return 1;
}

/* The master's end of the region: its barrier wait and the region. */
static void team_end(struct team *tm)
{
	tly_gomp_leave(tm->master, &tm->mark);
}

typedef void (*parallel_t)(outlined_t, void *, unsigned, unsigned);

TALLY_GOMP_EXPORT void GOMP_parallel(outlined_t fn, void *data, unsigned n, unsigned flags)
{
	static tly_gomp_slot next;
	parallel_t real = GOMP_NEXT(parallel_t, next, "GOMP_parallel");
	struct team tm;

	if (!team_init(&tm, fn, data, GOMP_CALLER(), 0)) {
		real(fn, data, n, flags);
		return;
	}
	real(trampoline, &tm, n, flags);
	team_end(&tm);
}

typedef unsigned (*parallel_red_t)(outlined_t, void *, unsigned, unsigned);

TALLY_GOMP_EXPORT unsigned GOMP_parallel_reductions(outlined_t fn, void *data, unsigned n, unsigned flags)
{
	static tly_gomp_slot next;
	parallel_red_t real = GOMP_NEXT(parallel_red_t, next, "GOMP_parallel_reductions");
	struct team tm;
	unsigned r;

	if (!team_init(&tm, fn, data, GOMP_CALLER(), 0))
		return real(fn, data, n, flags);
	r = real(trampoline, &tm, n, flags);
	team_end(&tm);
	return r;
}

typedef void (*par_sections_t)(outlined_t, void *, unsigned, unsigned, unsigned);

TALLY_GOMP_EXPORT void GOMP_parallel_sections(outlined_t fn, void *data, unsigned n, unsigned count,
					      unsigned flags)
{
	static tly_gomp_slot next;
	par_sections_t real = GOMP_NEXT(par_sections_t, next, "GOMP_parallel_sections");
	struct team tm;

	if (!team_init(&tm, fn, data, GOMP_CALLER(), 1)) {
		real(fn, data, n, count, flags);
		return;
	}
	real(trampoline, &tm, n, count, flags);
	team_end(&tm);
}

/* GOMP_parallel_loop_<schedule>(fn, data, n, start, end, incr, chunk, flags) */
typedef void (*par_loop_t)(outlined_t, void *, unsigned, long, long, long, long, unsigned);
/* the runtime-schedule ones have no chunk */
typedef void (*par_loop_rt_t)(outlined_t, void *, unsigned, long, long, long, unsigned);

static void par_loop(tly_gomp_slot *next, const char *sym, const void *code, outlined_t fn, void *data, unsigned n, long s,
		     long e, long i, long chunk, unsigned flags)
{
	par_loop_t real = (par_loop_t)tly_gomp_fn(next, sym);
	struct team tm;

	if (!team_init(&tm, fn, data, code, 1)) {
		real(fn, data, n, s, e, i, chunk, flags);
		return;
	}
	real(trampoline, &tm, n, s, e, i, chunk, flags);
	team_end(&tm);
}

static void par_loop_rt(tly_gomp_slot *next, const char *sym, const void *code, outlined_t fn, void *data, unsigned n, long s,
			long e, long i, unsigned flags)
{
	par_loop_rt_t real = (par_loop_rt_t)tly_gomp_fn(next, sym);
	struct team tm;

	if (!team_init(&tm, fn, data, code, 1)) {
		real(fn, data, n, s, e, i, flags);
		return;
	}
	real(trampoline, &tm, n, s, e, i, flags);
	team_end(&tm);
}

TALLY_GOMP_EXPORT void GOMP_parallel_loop_static(outlined_t fn, void *data, unsigned n, long s, long e,
						 long i, long c, unsigned flags)
{
	static tly_gomp_slot next;

	par_loop(&next, "GOMP_parallel_loop_static", GOMP_CALLER(), fn, data, n, s, e, i, c, flags);
}

TALLY_GOMP_EXPORT void GOMP_parallel_loop_dynamic(outlined_t fn, void *data, unsigned n, long s, long e,
						  long i, long c, unsigned flags)
{
	static tly_gomp_slot next;

	par_loop(&next, "GOMP_parallel_loop_dynamic", GOMP_CALLER(), fn, data, n, s, e, i, c, flags);
}

TALLY_GOMP_EXPORT void GOMP_parallel_loop_guided(outlined_t fn, void *data, unsigned n, long s, long e,
						 long i, long c, unsigned flags)
{
	static tly_gomp_slot next;

	par_loop(&next, "GOMP_parallel_loop_guided", GOMP_CALLER(), fn, data, n, s, e, i, c, flags);
}

TALLY_GOMP_EXPORT void GOMP_parallel_loop_nonmonotonic_dynamic(outlined_t fn, void *data, unsigned n,
							       long s, long e, long i, long c, unsigned flags)
{
	static tly_gomp_slot next;

	par_loop(&next, "GOMP_parallel_loop_nonmonotonic_dynamic", GOMP_CALLER(), fn, data, n, s, e, i, c, flags);
}

TALLY_GOMP_EXPORT void GOMP_parallel_loop_nonmonotonic_guided(outlined_t fn, void *data, unsigned n,
							      long s, long e, long i, long c, unsigned flags)
{
	static tly_gomp_slot next;

	par_loop(&next, "GOMP_parallel_loop_nonmonotonic_guided", GOMP_CALLER(), fn, data, n, s, e, i, c, flags);
}

TALLY_GOMP_EXPORT void GOMP_parallel_loop_runtime(outlined_t fn, void *data, unsigned n, long s, long e,
						  long i, unsigned flags)
{
	static tly_gomp_slot next;

	par_loop_rt(&next, "GOMP_parallel_loop_runtime", GOMP_CALLER(), fn, data, n, s, e, i, flags);
}

TALLY_GOMP_EXPORT void GOMP_parallel_loop_nonmonotonic_runtime(outlined_t fn, void *data, unsigned n,
							       long s, long e, long i, unsigned flags)
{
	static tly_gomp_slot next;

	par_loop_rt(&next, "GOMP_parallel_loop_nonmonotonic_runtime", GOMP_CALLER(), fn, data, n, s, e, i, flags);
}

TALLY_GOMP_EXPORT void GOMP_parallel_loop_maybe_nonmonotonic_runtime(outlined_t fn, void *data, unsigned n,
								     long s, long e, long i, unsigned flags)
{
	static tly_gomp_slot next;

	par_loop_rt(&next, "GOMP_parallel_loop_maybe_nonmonotonic_runtime", GOMP_CALLER(), fn, data, n, s, e, i, flags);
}

/* ---- the old ABI: GOMP_parallel_start ... fn(data) ... GOMP_parallel_end */

typedef void (*parallel_start_t)(outlined_t, void *, unsigned);

TALLY_GOMP_EXPORT void GOMP_parallel_start(outlined_t fn, void *data, unsigned n)
{
	static tly_gomp_slot next;
	parallel_start_t real = GOMP_NEXT(parallel_start_t, next, "GOMP_parallel_start");
	struct team *tm = malloc(sizeof *tm);

	if (!tm || !team_init(tm, fn, data, GOMP_CALLER(), 0)) {
		free(tm);
		real(fn, data, n);
		return;
	}
	tm->outer = old_teams;
	old_teams = tm;
	real(trampoline, tm, n);
	/* the caller runs fn itself next: its part of the region starts here */
	tly_gomp_enter(tm->master, &tm->mark, tm->name, TLY_RK_OMP_PARALLEL);
	tly_gomp_in_team++;
	tm->outer_size = tly_gomp_team_size;
	tly_gomp_team_size = tly_gomp_num_threads();
}

TALLY_GOMP_EXPORT void GOMP_parallel_end(void)
{
	struct team *tm = old_teams;
	static tly_gomp_slot next;
	void (*real)(void) = GOMP_NEXT(void (*)(void), next, "GOMP_parallel_end");

	if (tm) {
		old_teams = tm->outer;
		tly_gomp_in_team--;
		if (tly_gomp_waits(tm->master))
			tly_rt_enter(tm->master, tly_rt_omp_label(TLY_RK_OMP_BARRIER), TLY_RK_OMP_BARRIER,
				     tly_gomp_counters());
		tly_gomp_team_size = tm->outer_size;
	}
	real();
	if (tm) {
		team_end(tm);
		free(tm);
	}
}
