/*
 * budget.c - the cost budget a thread keeps by itself.
 *
 * Every TLY_BUDGET_EVERY enters a thread compares what its records cost
 * since its last check (each kind's count times its mean timed cost,
 * regions/region.c) with TALLY_BUDGET percent of its CPU time since then.
 * Within the budget nothing happens.  Over it, each region whose records
 * cost more than the budget's share of its own mean time is degraded in
 * steps (docs/runtime.md, "The cost budget"):
 *
 *  1. counters off: its counter reads stop (time and visits kept).  A
 *     region's time includes its two reads, so only now can its own time
 *     be measured: after MIN_VISITS more visits,
 *  2. counters sampled: its counters are read on one visit in N, N the
 *     smallest that fits its records in the share of its own time, and
 *     its values are scaled to all its visits since step 1 (estimates);
 *  3. visits only: when even its bookkeeping (or reads on 1 in
 *     SAMPLE_MAX) exceeds the share, its clock reads stop too.
 *
 * A region within the budget is never touched, so long regions keep exact
 * counter values.  All of it runs on the thread itself, on its own
 * records: no lock.
 */
#include "regions/budget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tally_shared.h"

/* Visits a region needs before its mean time is trusted: in full, and
 * again with its counters off before its N is chosen. */
#define MIN_VISITS 16
/* Sampled reads on at least 1 visit in SAMPLE_MAX (at 1-5 us a read,
 * under 10 ns a visit): a region that cannot afford that is visits only. */
#define SAMPLE_MAX 1024

static int by_value(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

int64_t tly_budget_each(const struct tly_rt_thread *t, enum tly_rt_cost_kind kind, int64_t fallback)
{
	int64_t k = t->cost[kind].timed < TLY_RT_BUDGET_LAST ? t->cost[kind].timed : TLY_RT_BUDGET_LAST;
	int32_t v[TLY_RT_BUDGET_LAST];

	if (!k)
		return fallback;
	memcpy(v, t->budget_last[kind], (size_t)k * sizeof *v);
	qsort(v, (size_t)k, sizeof *v, by_value);
	return v[k / 2];
}

static int64_t thread_cost_ns(const struct tly_rt_thread *t, const struct tly_rt_proc *p)
{
	return tly_rt_cost_ns(&t->cost[TLY_COST_counter_read], p->counter_read_ns)
	       + tly_rt_cost_ns(&t->cost[TLY_COST_visit], 2 * p->clock_read_ns);
}

/* The seed of a region's sampled reads: a hash of its name and kind,
 * the same in every thread's tree (node indices are not). */
static uint32_t name_key(const struct tly_rt_node *n)
{
	const char *name = n->name ? n->name : "";
	uint64_t h = tly_fnv1a(TLY_FNV_BASIS, &n->kind, sizeof n->kind);

	h = tly_fnv1a(h, name, strlen(name));
	return (uint32_t)(h ^ (h >> 32));
}

static struct tly_rt_degrade *deg_new(struct tly_rt_thread *t, struct tly_rt_node *n, int64_t now)
{
	struct tly_rt_degrade *d = calloc(1, sizeof *d);

	if (!d)
		return NULL;
	d->from_visit = n->visits;
	d->from_ns = now;
	d->off_incl_ns = n->incl_ns;
	d->off_timed = n->timed_visits;
	d->key = name_key(n);
	n->deg = d;
	t->degraded++;
	return d;
}

/* The regions whose counters went off and whose N is not yet chosen: a
 * check looks at them even within the budget (listed while few, so it
 * need not scan the tree; more: it does). */
static void pending(struct tly_rt_thread *t, int32_t node, int add)
{
	int32_t k = t->budget_pending < TLY_RT_BUDGET_PEND ? t->budget_pending : TLY_RT_BUDGET_PEND;

	if (add) {
		if (k < TLY_RT_BUDGET_PEND && !t->budget_pend_lost)
			t->budget_pend[k] = node;
		else
			t->budget_pend_lost = 1;
		t->budget_pending++;
		return;
	}
	for (int32_t i = 0; i < k; i++)
		if (t->budget_pend[i] == node) {
			t->budget_pend[i] = t->budget_pend[k - 1];
			break;
		}
	if (--t->budget_pending == 0)
		t->budget_pend_lost = 0;
}

static void to_step(struct tly_rt_thread *t, struct tly_rt_degrade *d, const struct tly_rt_node *n, int step,
		    int64_t now)
{
	if (d->step == TLY_DEG_COUNTERS_OFF)
		pending(t, (int32_t)(n - t->nodes), 0);
	if (step == TLY_DEG_COUNTERS_OFF)
		pending(t, (int32_t)(n - t->nodes), 1);
	if (step == TLY_DEG_SAMPLED) {
		d->sampled_visit = n->visits;
		d->sampled_ns = now;
	}
	if (step == TLY_DEG_VISITS_ONLY) {
		d->step3_visit = n->visits;
		d->step3_ns = now;
	}
	d->step = step;
}

/* A region in full: degrade it when its records cost more than pct of
 * its time (its mean includes its two reads: counters off first). */
static void judge_full(struct tly_rt_thread *t, struct tly_rt_node *n, double pct, int64_t read_ns,
		       int64_t visit_ns, int64_t now)
{
	struct tly_rt_degrade *d;
	double mean, rec;

	if (n->timed_visits < MIN_VISITS)
		return;
	mean = (double)n->incl_ns / (double)n->timed_visits;
	rec = (double)visit_ns + (n->counted ? 2.0 * (double)read_ns : 0.0);
	if (rec * 100.0 <= pct * mean || !(d = deg_new(t, n, now)))
		return;
	d->cost_pct = rec * 100.0 / mean;
	to_step(t, d, n, n->counted ? TLY_DEG_COUNTERS_OFF : TLY_DEG_VISITS_ONLY, now);
}

/* A region with its counters off or sampled, once its own time without
 * reads is known: sampled 1 in N, N the smallest that fits its records
 * in pct of that time (a sampled one: N grows when they no longer fit),
 * or visits only when not even its bookkeeping and 1 in SAMPLE_MAX do. */
static void judge_off(struct tly_rt_thread *t, struct tly_rt_node *n, double pct, int64_t read_ns, int64_t visit_ns,
		      int64_t now)
{
	struct tly_rt_degrade *d = n->deg;
	int64_t tv = n->timed_visits - d->off_timed;
	double mean, share, need;

	if (tv < MIN_VISITS)
		return;
	mean = (double)(n->incl_ns - d->off_incl_ns) / (double)tv;
	share = pct / 100.0 * mean;
	if (d->step == TLY_DEG_SAMPLED && (double)visit_ns + 2.0 * (double)read_ns / d->sample_n <= share)
		return;
	need = share > (double)visit_ns ? ceil(2.0 * (double)read_ns / (share - (double)visit_ns)) : INFINITY;
	if (need > SAMPLE_MAX) {
		d->cost_pct = ((double)visit_ns + 2.0 * (double)read_ns / SAMPLE_MAX) * 100.0 / mean;
		to_step(t, d, n, TLY_DEG_VISITS_ONLY, now);
		return;
	}
	if (need < 2 || need < d->sample_n)
		need = need < d->sample_n ? d->sample_n : 2;
	d->sample_n = (int32_t)need;
	d->sample_pct = ((double)visit_ns + 2.0 * (double)read_ns / need) * 100.0 / mean;
	if (d->step == TLY_DEG_COUNTERS_OFF)
		to_step(t, d, n, TLY_DEG_SAMPLED, now);
}

void tly_budget_check(struct tly_rt_thread *t)
{
	const struct tly_rt_proc *p = tly_rt_proc();
	double pct = p->opt.budget_pct;
	int64_t cpu, cost, dcpu, dcost, now, read_ns, visit_ns;
	int over;

	t->budget_tick = 0;
	if (pct <= 0)
		return;
	cpu = tly_rt_thread_cpu_ns();
	cost = thread_cost_ns(t, p);
	dcpu = cpu - t->budget_cpu;
	dcost = cost - t->budget_cost;
	t->budget_cpu = cpu;
	t->budget_cost = cost;
	over = (double)dcost * 100.0 > pct * (double)dcpu;
	if (!over && !t->budget_pending)
		return;
	now = tly_rt_now() - p->start_ns;
	read_ns = tly_budget_each(t, TLY_COST_counter_read, p->counter_read_ns);
	visit_ns = tly_budget_each(t, TLY_COST_visit, 2 * p->clock_read_ns);
	if (!over && !t->budget_pend_lost) {
		int32_t pend[TLY_RT_BUDGET_PEND], k = t->budget_pending;

		memcpy(pend, t->budget_pend, sizeof pend);   /* judge_off changes the list */
		for (int32_t i = 0; i < k; i++)
			judge_off(t, &t->nodes[pend[i]], pct, read_ns, visit_ns, now);
		return;
	}
	for (int32_t i = 1; i < t->nnodes; i++) {
		struct tly_rt_node *n = &t->nodes[i];
		int step = n->deg ? n->deg->step : TLY_DEG_NONE;

		if (n->kind == TLY_RK_ROOT)
			continue;
		if (step == TLY_DEG_NONE && over)
			judge_full(t, n, pct, read_ns, visit_ns, now);
		else if (step == TLY_DEG_COUNTERS_OFF || (step == TLY_DEG_SAMPLED && over))
			judge_off(t, n, pct, read_ns, visit_ns, now);
	}
}

int64_t tly_budget_counters(const struct tly_rt_node *n, int nev, int64_t *out)
{
	const struct tly_rt_degrade *d = n->deg;
	int64_t upto, est;

	memcpy(out, n->cnt, (size_t)nev * sizeof *out);
	if (!d || !d->weight)
		return n->counted_visits;
	upto = d->step3_visit ? d->step3_visit : n->visits;
	est = upto > n->counted_visits ? upto - n->counted_visits : 0;
	for (int i = 0; i < nev; i++)
		out[i] += (int64_t)llround((double)d->scnt[i] * (double)est / (double)d->weight);
	return n->counted_visits + est;
}
