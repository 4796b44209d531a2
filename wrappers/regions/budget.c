/*
 * budget.c - the cost budget a thread keeps by itself.
 *
 * Every TLY_BUDGET_EVERY enters a thread compares what its records cost
 * since its last check (each kind's count times its mean timed cost,
 * regions/region.c) with TALLY_BUDGET percent of its CPU time since then.
 * Within the budget nothing happens.  Over it, each region whose records
 * cost more than the budget's share of its own mean time is degraded:
 * first its counter reads stop (time and visits are kept; its counters
 * are those of its counted visits); when even the bookkeeping of a visit
 * exceeds the share (regions shorter than about 30x a visit's cost), its
 * clock reads stop too (visits only).  A region within the budget is
 * never touched, so long regions keep exact counter values.  All of it
 * runs on the thread itself, on its own records: no lock.
 */
#include "regions/budget.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Visits a region needs before its mean time is trusted. */
#define MIN_VISITS 16

int64_t tly_budget_each(const struct tly_rt_thread *t, enum tly_rt_cost_kind kind, int64_t fallback)
{
	const struct tly_rt_cost *c = &t->cost[kind];

	return c->timed ? c->timed_ns / c->timed : fallback;
}

static int64_t thread_cost_ns(const struct tly_rt_thread *t, const struct tly_rt_proc *p)
{
	return tly_rt_cost_ns(&t->cost[TLY_COST_counter_read], p->counter_read_ns)
	       + tly_rt_cost_ns(&t->cost[TLY_COST_visit], 2 * p->clock_read_ns);
}

static void degrade(struct tly_rt_thread *t, struct tly_rt_node *n, int step, double pct, int64_t now)
{
	if (!n->deg) {
		n->deg = calloc(1, sizeof *n->deg);
		if (!n->deg)
			return;
		n->deg->from_visit = n->visits;
		n->deg->from_ns = now;
		t->degraded++;
	}
	if (step == TLY_DEG_VISITS_ONLY) {
		n->deg->step2_visit = n->visits;
		n->deg->step2_ns = now;
	}
	n->deg->step = step;
	n->deg->cost_pct = pct;
}

/* One region: degrade it when its records cost more than pct of its time. */
static void judge(struct tly_rt_thread *t, struct tly_rt_node *n, double pct, int64_t read_ns, int64_t visit_ns,
		  int64_t now)
{
	int step = n->deg ? n->deg->step : TLY_DEG_NONE;
	double mean, rec;

	if (n->timed_visits < MIN_VISITS || step == TLY_DEG_VISITS_ONLY || n->kind == TLY_RK_ROOT)
		return;
	mean = (double)n->incl_ns / (double)n->timed_visits;
	rec = (double)visit_ns + (step == TLY_DEG_NONE && n->counted ? 2.0 * (double)read_ns : 0.0);
	if (rec * 100.0 <= pct * mean)
		return;
	if (step == TLY_DEG_NONE && n->counted)
		degrade(t, n, TLY_DEG_COUNTERS_OFF, rec * 100.0 / mean, now);
	else
		degrade(t, n, TLY_DEG_VISITS_ONLY, rec * 100.0 / mean, now);
}

void tly_budget_check(struct tly_rt_thread *t)
{
	const struct tly_rt_proc *p = tly_rt_proc();
	double pct = p->opt.budget_pct;
	int64_t cpu, cost, dcpu, dcost, now, read_ns, visit_ns;

	t->budget_tick = 0;
	if (pct <= 0)
		return;
	cpu = tly_rt_thread_cpu_ns();
	cost = thread_cost_ns(t, p);
	dcpu = cpu - t->budget_cpu;
	dcost = cost - t->budget_cost;
	t->budget_cpu = cpu;
	t->budget_cost = cost;
	if ((double)dcost * 100.0 <= pct * (double)dcpu)
		return;
	now = tly_rt_now() - p->start_ns;
	read_ns = tly_budget_each(t, TLY_COST_counter_read, p->counter_read_ns);
	visit_ns = tly_budget_each(t, TLY_COST_visit, 2 * p->clock_read_ns);
	for (int32_t i = 1; i < t->nnodes; i++)
		judge(t, &t->nodes[i], pct, read_ns, visit_ns, now);
}
