/*
 * budget.h - the cost budget (regions/budget.c): TALLY_BUDGET percent of
 * the thread's CPU time for Tally's records; a region whose records cost
 * more than that share of its own time is degraded in steps (counters
 * off, then counters sampled 1 in N, then visits only), and the file says
 * which, from when and why.
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

/* The next gap between two sampled visits of d: uniform in 1 .. 2N-1
 * (mean N), so the reads never fall into step with a period of the
 * program's own. */
static inline int32_t tly_budget_gap(struct tly_rt_degrade *d)
{
	uint32_t x = d->rng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	d->rng = x;
	return 1 + (int32_t)(x % (uint32_t)(2 * d->sample_n - 1));
}

/* Whether a visit of a region reads its counters: 1 in full, 0 with its
 * counters off or visits only, 2 (a sampled read) on about one visit in N
 * of a sampled region. */
static inline int tly_budget_reads(struct tly_rt_degrade *d)
{
	if (!d)
		return 1;
	if (d->step != TLY_DEG_SAMPLED || --d->gap > 0)
		return 0;
	d->gap = tly_budget_gap(d);
	return 2;
}

/* The typical cost in ns of one record of `kind` on thread t: the median
 * of its last TLY_RT_BUDGET_LAST timed ones (`fallback` when none was
 * timed). */
int64_t tly_budget_each(const struct tly_rt_thread *t, enum tly_rt_cost_kind kind, int64_t fallback);

/* Node n's counters for the file: its exact sums plus, when it was
 * sampled, the estimate of its visits from the step 'counters off' on
 * (until visits only or the end): the sampled sums scaled by those visits
 * over the visits the samples stand for.  Returns the visits the values
 * hold or estimate. */
int64_t tly_budget_counters(const struct tly_rt_node *n, int nev, int64_t *out);

#endif /* TALLY_BUDGET_H */
