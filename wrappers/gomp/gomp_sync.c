/*
 * gomp_sync.c - waits at GCC OpenMP synchronisation: explicit and implicit
 * barriers (GCC ends `for` with static schedule, `single` and `sections`
 * without nowait by a GOMP_barrier call) become "omp barrier wait"
 * regions, as the OMPT tool records them; the wait to enter a critical
 * section becomes "omp critical wait" (kind omp barrier wait: a
 * synchronisation wait), which the OMPT tool does not record.  single
 * itself needs no wrapper: who runs it is decided without waiting.
 */
#include "gomp/gomp.h"

#include <stdbool.h>

#include "regions/regions.h"
#include "runtime/rt_srcname.h"

#define CRITICAL_WAIT "omp critical wait"

static void critical_enter(struct tly_rt_thread *t, struct tly_gomp_mark *m)
{
	m->depth = t->depth;
	m->truncated = t->truncated_depth;
	tly_rt_enter(t, CRITICAL_WAIT, TLY_RK_OMP_BARRIER, 0);
}

/* The calling thread's record when a wait there is recorded. */
static struct tly_rt_thread *waiter(void)
{
	struct tly_rt_thread *t = tly_gomp_in_team ? tly_gomp_thread() : NULL;

	return t && tly_gomp_waits(t) ? t : NULL;
}

/* A wait around the call of the void function `real`: a barrier (with
 * counters as TALLY_OMP_COUNTERS says) or a critical section (time only). */
static void wait_in(void (*real)(void), int barrier)
{
	struct tly_rt_thread *t = waiter();
	struct tly_gomp_mark m = { 0, 0 };

	if (!t) {
		real();
		return;
	}
	if (barrier)
		tly_gomp_enter(t, &m, tly_rt_omp_label(TLY_RK_OMP_BARRIER), TLY_RK_OMP_BARRIER);
	else
		critical_enter(t, &m);
	real();
	tly_gomp_leave(t, &m);
}

TALLY_GOMP_EXPORT void GOMP_barrier(void)
{
	static tly_gomp_slot next;

	wait_in(GOMP_NEXT(void (*)(void), next, "GOMP_barrier"), 1);
}

TALLY_GOMP_EXPORT bool GOMP_barrier_cancel(void)
{
	static tly_gomp_slot next;
	bool (*real)(void) = GOMP_NEXT(bool (*)(void), next, "GOMP_barrier_cancel");
	struct tly_rt_thread *t = waiter();
	struct tly_gomp_mark m;
	bool r;

	if (!t)
		return real();
	tly_gomp_enter(t, &m, tly_rt_omp_label(TLY_RK_OMP_BARRIER), TLY_RK_OMP_BARRIER);
	r = real();
	tly_gomp_leave(t, &m);
	return r;
}

TALLY_GOMP_EXPORT void GOMP_critical_start(void)
{
	static tly_gomp_slot next;

	wait_in(GOMP_NEXT(void (*)(void), next, "GOMP_critical_start"), 0);
}

TALLY_GOMP_EXPORT void GOMP_critical_name_start(void **pptr)
{
	static tly_gomp_slot next;
	void (*real)(void **) = GOMP_NEXT(void (*)(void **), next, "GOMP_critical_name_start");
	struct tly_rt_thread *t = waiter();
	struct tly_gomp_mark m;

	if (!t) {
		real(pptr);
		return;
	}
	critical_enter(t, &m);
	real(pptr);
	tly_gomp_leave(t, &m);
}
