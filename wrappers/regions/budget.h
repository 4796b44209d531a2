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

/* Whether the visit-th visit (from 0) of a sampled region reads its
 * counters: a hash of (d->key, visit) under 2^32 / N, so about one visit
 * in N, never in step with a period of the program's own, and the same
 * visits on every thread of a team (each thread's k-th visit of a
 * parallel region is the same instance of it; with N differing between
 * threads, the larger N's visits are among the smaller's): the team then
 * waits at its barrier for one thread's reads, not for each thread's in
 * turn. */
static inline int tly_budget_sampled(const struct tly_rt_degrade *d, int64_t visit)
{
	uint64_t z = ((uint64_t)d->key << 32 ^ (uint64_t)visit) + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (uint32_t)(z >> 32) < (uint32_t)(UINT32_MAX / (uint32_t)d->sample_n);
}

/* Whether a visit of a region reads its counters: 1 in full, 0 with its
 * counters off or visits only, 2 (a sampled read) on about one visit in N
 * of a sampled region; visit: the region's visits before this one. */
static inline int tly_budget_reads(const struct tly_rt_degrade *d, int64_t visit)
{
	if (!d)
		return 1;
	return d->step == TLY_DEG_SAMPLED && d->sample_n > 0 && tly_budget_sampled(d, visit) ? 2 : 0;
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
