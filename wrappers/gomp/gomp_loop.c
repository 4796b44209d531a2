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
	if (!barrier || !tly_gomp_in_team || !tly_gomp_waits(t)) {
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
	if (!tly_gomp_in_team || !tly_gomp_waits(t))
		return real();
	tly_gomp_enter(t, &m, tly_rt_omp_label(TLY_RK_OMP_BARRIER), TLY_RK_OMP_BARRIER);
	r = real();
	tly_gomp_leave(t, &m);
	return r;
}

/* The starts: plain forwarders after loop_begin, generated from
 * gomp_spec.txt by gen_gomp.py (build tree: generated/gomp_loop_wrap.inc). */
#include "gomp_loop_wrap.inc"

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
