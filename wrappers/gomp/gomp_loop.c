/*
 * gomp_loop.c - GCC's worksharing loops and sections measured inside
 * libgomp.  A loop with a runtime-scheduled, dynamic, guided or ordered
 * schedule (GCC inlines static schedules: no call, no region, as on the
 * OMPT path) starts with GOMP_loop_*_start on each thread of the team,
 * which enters "omp loop @ function (file:line)" (the program's call);
 * GOMP_loop_end and its variants leave it, and the barrier of
 * GOMP_loop_end / GOMP_loop_end_cancel is an "omp barrier wait" after it
 * (libomp's OMPT order: work end, then the barrier).  Sections are loops
 * too, as on the OMPT path.  The loop_*_next calls that hand out chunks are
 * not wrapped: they cost no wait worth a region.
 */
#include "gomp/gomp.h"

#include <stdbool.h>
#include <stdint.h>

#include "regions/regions.h"
#include "runtime/rt_srcname.h"

typedef unsigned long long ull;
typedef bool (*loop_t)(long, long, long, long, long *, long *);
typedef bool (*loop_rt_t)(long, long, long, long *, long *);
typedef bool (*loop_gen_t)(long, long, long, long, long, long *, long *, uintptr_t *, void **);
typedef bool (*ull_t)(bool, ull, ull, ull, ull, ull *, ull *);
typedef bool (*ull_rt_t)(bool, ull, ull, ull, ull *, ull *);
typedef bool (*ull_gen_t)(bool, ull, ull, ull, long, ull, ull *, ull *, uintptr_t *, void **);
typedef unsigned (*sect_t)(unsigned);
typedef unsigned (*sect2_t)(unsigned, uintptr_t *, void **);

static void loop_begin(const void *code)
{
	struct tly_rt_thread *t = tly_gomp_thread();

	if (t)
		tly_rt_enter(t, tly_rt_omp_name(code, TLY_RK_OMP_LOOP), TLY_RK_OMP_LOOP, tly_gomp_counters());
	else
		tly_rt_omp_forwarding(code);
}

/* The end of a loop or sections on this thread, with its barrier or not. */
static void loop_end(void (*real)(void), int barrier)
{
	struct tly_rt_thread *t = tly_gomp_thread();
	struct tly_gomp_mark m;

	if (!t) {
		real();
		return;
	}
	tly_rt_exit_kind(t, TLY_RK_OMP_LOOP);
	if (!barrier || !tly_gomp_in_team) {
		real();
		return;
	}
	tly_gomp_enter(t, &m, tly_rt_omp_label(TLY_RK_OMP_BARRIER), TLY_RK_OMP_BARRIER);
	real();
	tly_gomp_leave(t, &m);
}

static bool loop_end_cancel(bool (*real)(void))
{
	struct tly_rt_thread *t = tly_gomp_thread();
	struct tly_gomp_mark m;
	bool r;

	if (!t)
		return real();
	tly_rt_exit_kind(t, TLY_RK_OMP_LOOP);
	if (!tly_gomp_in_team)
		return real();
	tly_gomp_enter(t, &m, tly_rt_omp_label(TLY_RK_OMP_BARRIER), TLY_RK_OMP_BARRIER);
	r = real();
	tly_gomp_leave(t, &m);
	return r;
}

TALLY_GOMP_EXPORT bool GOMP_loop_static_start(long s, long e, long i, long c, long *is, long *ie)
{
	static tly_gomp_slot next;
	loop_t real = GOMP_NEXT(loop_t, next, "GOMP_loop_static_start");

	loop_begin(GOMP_CALLER());
	return real(s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_dynamic_start(long s, long e, long i, long c, long *is, long *ie)
{
	static tly_gomp_slot next;
	loop_t real = GOMP_NEXT(loop_t, next, "GOMP_loop_dynamic_start");

	loop_begin(GOMP_CALLER());
	return real(s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_guided_start(long s, long e, long i, long c, long *is, long *ie)
{
	static tly_gomp_slot next;
	loop_t real = GOMP_NEXT(loop_t, next, "GOMP_loop_guided_start");

	loop_begin(GOMP_CALLER());
	return real(s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_nonmonotonic_dynamic_start(long s, long e, long i, long c,
					long *is, long *ie)
{
	static tly_gomp_slot next;
	loop_t real = GOMP_NEXT(loop_t, next, "GOMP_loop_nonmonotonic_dynamic_start");

	loop_begin(GOMP_CALLER());
	return real(s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_nonmonotonic_guided_start(long s, long e, long i, long c,
					long *is, long *ie)
{
	static tly_gomp_slot next;
	loop_t real = GOMP_NEXT(loop_t, next, "GOMP_loop_nonmonotonic_guided_start");

	loop_begin(GOMP_CALLER());
	return real(s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ordered_static_start(long s, long e, long i, long c, long *is,
					long *ie)
{
	static tly_gomp_slot next;
	loop_t real = GOMP_NEXT(loop_t, next, "GOMP_loop_ordered_static_start");

	loop_begin(GOMP_CALLER());
	return real(s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ordered_dynamic_start(long s, long e, long i, long c, long *is,
					long *ie)
{
	static tly_gomp_slot next;
	loop_t real = GOMP_NEXT(loop_t, next, "GOMP_loop_ordered_dynamic_start");

	loop_begin(GOMP_CALLER());
	return real(s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ordered_guided_start(long s, long e, long i, long c, long *is,
					long *ie)
{
	static tly_gomp_slot next;
	loop_t real = GOMP_NEXT(loop_t, next, "GOMP_loop_ordered_guided_start");

	loop_begin(GOMP_CALLER());
	return real(s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_runtime_start(long s, long e, long i, long *is, long *ie)
{
	static tly_gomp_slot next;
	loop_rt_t real = GOMP_NEXT(loop_rt_t, next, "GOMP_loop_runtime_start");

	loop_begin(GOMP_CALLER());
	return real(s, e, i, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_nonmonotonic_runtime_start(long s, long e, long i, long *is,
					long *ie)
{
	static tly_gomp_slot next;
	loop_rt_t real = GOMP_NEXT(loop_rt_t, next, "GOMP_loop_nonmonotonic_runtime_start");

	loop_begin(GOMP_CALLER());
	return real(s, e, i, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_maybe_nonmonotonic_runtime_start(long s, long e, long i, long *is,
					long *ie)
{
	static tly_gomp_slot next;
	loop_rt_t real = GOMP_NEXT(loop_rt_t, next, "GOMP_loop_maybe_nonmonotonic_runtime_start");

	loop_begin(GOMP_CALLER());
	return real(s, e, i, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ordered_runtime_start(long s, long e, long i, long *is, long *ie)
{
	static tly_gomp_slot next;
	loop_rt_t real = GOMP_NEXT(loop_rt_t, next, "GOMP_loop_ordered_runtime_start");

	loop_begin(GOMP_CALLER());
	return real(s, e, i, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_start(long s, long e, long i, long sched, long c, long *is,
					long *ie, uintptr_t *red, void **mem)
{
	static tly_gomp_slot next;
	loop_gen_t real = GOMP_NEXT(loop_gen_t, next, "GOMP_loop_start");

	loop_begin(GOMP_CALLER());
	return real(s, e, i, sched, c, is, ie, red, mem);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ordered_start(long s, long e, long i, long sched, long c,
					long *is, long *ie, uintptr_t *red, void **mem)
{
	static tly_gomp_slot next;
	loop_gen_t real = GOMP_NEXT(loop_gen_t, next, "GOMP_loop_ordered_start");

	loop_begin(GOMP_CALLER());
	return real(s, e, i, sched, c, is, ie, red, mem);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ull_static_start(bool up, ull s, ull e, ull i, ull c, ull *is,
					ull *ie)
{
	static tly_gomp_slot next;
	ull_t real = GOMP_NEXT(ull_t, next, "GOMP_loop_ull_static_start");

	loop_begin(GOMP_CALLER());
	return real(up, s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ull_dynamic_start(bool up, ull s, ull e, ull i, ull c, ull *is,
					ull *ie)
{
	static tly_gomp_slot next;
	ull_t real = GOMP_NEXT(ull_t, next, "GOMP_loop_ull_dynamic_start");

	loop_begin(GOMP_CALLER());
	return real(up, s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ull_guided_start(bool up, ull s, ull e, ull i, ull c, ull *is,
					ull *ie)
{
	static tly_gomp_slot next;
	ull_t real = GOMP_NEXT(ull_t, next, "GOMP_loop_ull_guided_start");

	loop_begin(GOMP_CALLER());
	return real(up, s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ull_nonmonotonic_dynamic_start(bool up, ull s, ull e, ull i,
					ull c, ull *is, ull *ie)
{
	static tly_gomp_slot next;
	ull_t real = GOMP_NEXT(ull_t, next, "GOMP_loop_ull_nonmonotonic_dynamic_start");

	loop_begin(GOMP_CALLER());
	return real(up, s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ull_nonmonotonic_guided_start(bool up, ull s, ull e, ull i, ull c,
					ull *is, ull *ie)
{
	static tly_gomp_slot next;
	ull_t real = GOMP_NEXT(ull_t, next, "GOMP_loop_ull_nonmonotonic_guided_start");

	loop_begin(GOMP_CALLER());
	return real(up, s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ull_ordered_static_start(bool up, ull s, ull e, ull i, ull c,
					ull *is, ull *ie)
{
	static tly_gomp_slot next;
	ull_t real = GOMP_NEXT(ull_t, next, "GOMP_loop_ull_ordered_static_start");

	loop_begin(GOMP_CALLER());
	return real(up, s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ull_ordered_dynamic_start(bool up, ull s, ull e, ull i, ull c,
					ull *is, ull *ie)
{
	static tly_gomp_slot next;
	ull_t real = GOMP_NEXT(ull_t, next, "GOMP_loop_ull_ordered_dynamic_start");

	loop_begin(GOMP_CALLER());
	return real(up, s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ull_ordered_guided_start(bool up, ull s, ull e, ull i, ull c,
					ull *is, ull *ie)
{
	static tly_gomp_slot next;
	ull_t real = GOMP_NEXT(ull_t, next, "GOMP_loop_ull_ordered_guided_start");

	loop_begin(GOMP_CALLER());
	return real(up, s, e, i, c, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ull_runtime_start(bool up, ull s, ull e, ull i, ull *is, ull *ie)
{
	static tly_gomp_slot next;
	ull_rt_t real = GOMP_NEXT(ull_rt_t, next, "GOMP_loop_ull_runtime_start");

	loop_begin(GOMP_CALLER());
	return real(up, s, e, i, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ull_nonmonotonic_runtime_start(bool up, ull s, ull e, ull i,
					ull *is, ull *ie)
{
	static tly_gomp_slot next;
	ull_rt_t real = GOMP_NEXT(ull_rt_t, next, "GOMP_loop_ull_nonmonotonic_runtime_start");

	loop_begin(GOMP_CALLER());
	return real(up, s, e, i, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ull_maybe_nonmonotonic_runtime_start(bool up, ull s, ull e, ull i,
					ull *is, ull *ie)
{
	static tly_gomp_slot next;
	ull_rt_t real = GOMP_NEXT(ull_rt_t, next, "GOMP_loop_ull_maybe_nonmonotonic_runtime_start");

	loop_begin(GOMP_CALLER());
	return real(up, s, e, i, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ull_ordered_runtime_start(bool up, ull s, ull e, ull i, ull *is,
					ull *ie)
{
	static tly_gomp_slot next;
	ull_rt_t real = GOMP_NEXT(ull_rt_t, next, "GOMP_loop_ull_ordered_runtime_start");

	loop_begin(GOMP_CALLER());
	return real(up, s, e, i, is, ie);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ull_start(bool up, ull s, ull e, ull i, long sched, ull c,
					ull *is, ull *ie, uintptr_t *red, void **mem)
{
	static tly_gomp_slot next;
	ull_gen_t real = GOMP_NEXT(ull_gen_t, next, "GOMP_loop_ull_start");

	loop_begin(GOMP_CALLER());
	return real(up, s, e, i, sched, c, is, ie, red, mem);
}

TALLY_GOMP_EXPORT bool GOMP_loop_ull_ordered_start(bool up, ull s, ull e, ull i, long sched, ull c,
					ull *is, ull *ie, uintptr_t *red, void **mem)
{
	static tly_gomp_slot next;
	ull_gen_t real = GOMP_NEXT(ull_gen_t, next, "GOMP_loop_ull_ordered_start");

	loop_begin(GOMP_CALLER());
	return real(up, s, e, i, sched, c, is, ie, red, mem);
}

TALLY_GOMP_EXPORT unsigned GOMP_sections_start(unsigned count)
{
	static tly_gomp_slot next;
	sect_t real = GOMP_NEXT(sect_t, next, "GOMP_sections_start");

	loop_begin(GOMP_CALLER());
	return real(count);
}

TALLY_GOMP_EXPORT unsigned GOMP_sections2_start(unsigned count, uintptr_t *red, void **mem)
{
	static tly_gomp_slot next;
	sect2_t real = GOMP_NEXT(sect2_t, next, "GOMP_sections2_start");

	loop_begin(GOMP_CALLER());
	return real(count, red, mem);
}

TALLY_GOMP_EXPORT void GOMP_loop_end(void)
{
	static tly_gomp_slot next;

	loop_end(GOMP_NEXT(void (*)(void), next, "GOMP_loop_end"), 1);
}

TALLY_GOMP_EXPORT void GOMP_loop_end_nowait(void)
{
	static tly_gomp_slot next;

	loop_end(GOMP_NEXT(void (*)(void), next, "GOMP_loop_end_nowait"), 0);
}

TALLY_GOMP_EXPORT bool GOMP_loop_end_cancel(void)
{
	static tly_gomp_slot next;

	return loop_end_cancel(GOMP_NEXT(bool (*)(void), next, "GOMP_loop_end_cancel"));
}

TALLY_GOMP_EXPORT void GOMP_sections_end(void)
{
	static tly_gomp_slot next;

	loop_end(GOMP_NEXT(void (*)(void), next, "GOMP_sections_end"), 1);
}

TALLY_GOMP_EXPORT void GOMP_sections_end_nowait(void)
{
	static tly_gomp_slot next;

	loop_end(GOMP_NEXT(void (*)(void), next, "GOMP_sections_end_nowait"), 0);
}

TALLY_GOMP_EXPORT bool GOMP_sections_end_cancel(void)
{
	static tly_gomp_slot next;

	return loop_end_cancel(GOMP_NEXT(bool (*)(void), next, "GOMP_sections_end_cancel"));
}
