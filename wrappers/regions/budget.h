/*
 * budget.h - the cost budget (regions/budget.c): TALLY_BUDGET percent of
 * the thread's CPU time for Tally's records; a region whose records cost
 * more than that share of its own time is degraded in steps (counters
 * off, then visits only), and the file says which, from when and why.
 */
#ifndef TALLY_BUDGET_H
#define TALLY_BUDGET_H

#include "runtime/rt.h"

/* Enters of a thread between two checks of its budget: a check reads the
 * thread's CPU clock (a system call, about 0.3 us), so one in 256 costs
 * the enters about 1 ns each. */
#define TLY_BUDGET_EVERY 256

/* Compare the thread's record cost since its last check with the budget
 * share of its CPU time since then; over it, degrade the regions whose
 * records cost more than the budget of their own time. */
void tly_budget_check(struct tly_rt_thread *t);

/* Called on every enter: cheap (a per-thread counter, no lock). */
static inline void tly_budget_tick(struct tly_rt_thread *t)
{
	if (__builtin_expect(++t->budget_tick >= TLY_BUDGET_EVERY, 0))
		tly_budget_check(t);
}

/* The mean cost in ns of one record of `kind` on thread t (its timed
 * sample; `fallback` when none was timed). */
int64_t tly_budget_each(const struct tly_rt_thread *t, enum tly_rt_cost_kind kind, int64_t fallback);

#endif /* TALLY_BUDGET_H */
