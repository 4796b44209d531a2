/*
 * region.c - the per-thread region tree.  Nodes live in a per-thread array
 * (indices, never pointers, so it can grow); a node is found among its
 * parent's children by name (MPI calls: by the static name's pointer).  Enter/exit read
 * the thread's event set once and allocate only when a path is new.
 */
#include "runtime/rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "regions/budget.h"
#include "regions/region_index.h"
#include "regions/regions.h"
#include "runtime/rt_parts.h"

struct tly_region_hooks tly_region_hooks;

void tly_region_follow(tly_region_follow_fn fn)
{
	__atomic_store_n(&tly_region_hooks.follow, fn, __ATOMIC_RELEASE);
}

void tly_region_rotate(tly_region_rotate_fn enter, tly_region_rotate_fn leave)
{
	__atomic_store_n(&tly_region_hooks.rotate_enter, enter, __ATOMIC_RELEASE);
	__atomic_store_n(&tly_region_hooks.rotate_leave, leave, __ATOMIC_RELEASE);
}

void tly_region_scope(tly_region_scope_on_fn on, tly_region_scope_path_fn path)
{
	__atomic_store_n(&tly_region_hooks.scope_path, path, __ATOMIC_RELEASE);
	__atomic_store_n(&tly_region_hooks.scope_on, on, __ATOMIC_RELEASE);
	if (on && __atomic_load_n(&tly_region_hooks.scope_wanted, __ATOMIC_ACQUIRE))
		on();
}

void tly_region_scope_want(void)
{
	tly_region_scope_on_fn on;

	__atomic_store_n(&tly_region_hooks.scope_wanted, 1, __ATOMIC_RELEASE);
	on = __atomic_load_n(&tly_region_hooks.scope_on, __ATOMIC_ACQUIRE);
	if (on)
		on();
}

static int32_t new_node(struct tly_rt_thread *t, int32_t parent, const char *name, int kind, uint32_t h)
{
	struct tly_rt_node *n;

	if (t->nnodes == t->cap) {
		int32_t cap = t->cap ? t->cap * 2 : 64;
		void *p = realloc(t->nodes, (size_t)cap * sizeof *t->nodes);

		if (!p)
			return -1;
		t->nodes = p;
		t->cap = cap;
	}
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof *n);
	n->name = strdup(name);
	if (!n->name)
		return -1;
	n->key = name;
	n->parent = parent;
	n->kind = kind;
	n->hash = h;
	n->first_child = n->next_sibling = n->last_child = -1;
	if (parent >= 0 && tly_rx_add(t, t->nnodes) != 0) {
		free((void *)n->name);
		return -1;
	}
	if (parent >= 0) {
		/* append, so children keep their order of first visit */
		struct tly_rt_node *p = &t->nodes[parent];

		if (p->last_child >= 0)
			t->nodes[p->last_child].next_sibling = t->nnodes;
		else
			p->first_child = t->nnodes;
		p->last_child = t->nnodes;
	}
	return t->nnodes++;
}

/* The node of (parent, name, kind), created when new.  Beyond
 * TALLY_MAX_REGIONS nodes a new name goes to its parent's overflow node
 * (memory stays bounded; t->folded counts such entries for the report). */
static int32_t child(struct tly_rt_thread *t, int32_t parent, const char *name, int kind)
{
	int32_t c = tly_rx_memo_get(t, parent, name, kind);
	uint32_t h;

	if (c >= 0)
		return c;
	h = tly_rx_hash(parent, name, kind);
	if ((c = tly_rx_find(t, parent, name, kind, h)) >= 0) {
		tly_rx_memo_put(t, parent, name, kind, c);
		return c;
	}
	if (t->nnodes >= tly_rt_proc()->opt.max_regions) {   /* folded: counted at every visit, not kept */
		t->folded++;
		h = tly_rx_hash(parent, TLY_RT_OVERFLOW_REGION, TLY_RK_USER);
		c = tly_rx_find(t, parent, TLY_RT_OVERFLOW_REGION, TLY_RK_USER, h);
		return c >= 0 ? c : new_node(t, parent, TLY_RT_OVERFLOW_REGION, TLY_RK_USER, h);
	}
	c = new_node(t, parent, name, kind, h);
	tly_rx_memo_put(t, parent, name, kind, c);
	return c;
}

/* A timed record: one that took longer than TLY_RT_COST_OUTLIER was
 * preempted (the thread lost the CPU to another on a loaded node), which
 * costs the program nothing: it is not a sample of the record's cost. */
#define TLY_RT_COST_OUTLIER 50000
static void cost_sample(struct tly_rt_thread *t, enum tly_rt_cost_kind kind, int64_t ns)
{
	struct tly_rt_cost *c = &t->cost[kind];

	if (ns > TLY_RT_COST_OUTLIER)
		return;
	t->budget_last[kind][c->timed % TLY_RT_BUDGET_LAST] = (int32_t)ns;   /* regions/budget.c */
	c->timed_ns += ns;
	c->timed++;
}

/* One read of the thread's counters at a region boundary; one in
 * TLY_RT_COST_SAMPLE is timed (two clock reads), so Tally's per-event
 * cost in the file is these reads times what they cost in this run, with
 * cold caches and the system call as the program met them, not a
 * start-up loop's. */
static int counters_read(struct tly_rt_thread *t, long long *v)
{
	struct tly_rt_cost *c = &t->cost[TLY_COST_counter_read];
	int64_t t0;
	int rc;

	if (c->n++ % TLY_RT_COST_SAMPLE)
		return PAPI_read(t->evset, v);
	t0 = tly_rt_now();
	rc = PAPI_read(t->evset, v);
	cost_sample(t, TLY_COST_counter_read, tly_rt_now() - t0);
	return rc;
}

/* The bookkeeping of a visit, timed on one enter in TLY_RT_COST_SAMPLE
 * from the enter's start to its counter read; the exit's share (the
 * fold) is taken as equal. */
static void visit_timed(struct tly_rt_thread *t, int64_t t_in)
{
	if (t_in)
		cost_sample(t, TLY_COST_visit, 2 * (tly_rt_now() - t_in));
}

int tly_rt_enter(struct tly_rt_thread *t, const char *name, int kind, int counters)
{
	return tly_rt_enter_at(t, name, kind, counters, -1);
}

int tly_rt_exit(struct tly_rt_thread *t)
{
	return tly_rt_exit_at(t, -1);
}

static int enter(struct tly_rt_thread *t, const char *name, int kind, int counters, int64_t t0, int borrowed)
{
	struct tly_rt_frame *f;
	struct tly_rt_degrade *deg;
	tly_region_rotate_fn rotate;
	int64_t t_in = 0;
	int32_t c;

	if (t->stopped)
		return 0;
	if (t->cost[TLY_COST_visit].n++ % TLY_RT_COST_SAMPLE == 0)
		t_in = tly_rt_now();
	if (t->truncated_depth || t->depth > tly_rt_proc()->opt.max_depth) {
		t->truncated_depth++;
		t->truncated++;
		return 0;
	}
	c = t->depth ? child(t, t->stack[t->depth - 1].node, name, kind) : new_node(t, -1, name, kind, 0);
	if (c < 0) {
		t->truncated_depth++;
		t->truncated++;
		return -1;
	}
	/* time outside the counter reads: a region's time includes the cost of
	 * reading its counters, so a clock counter never exceeds the time */
	f = &t->stack[t->depth++];
	f->node = c;
	deg = t->nodes[c].deg;   /* the cost budget's steps: regions/budget.c */
	f->timed = !deg || deg->step < TLY_DEG_VISITS_ONLY || tly_region_hooks.follow;
	f->t0 = t0 >= 0 ? t0 : f->timed ? tly_rt_now() : 0;
	f->counters = counters && t->evset >= 0 ? tly_budget_reads(deg, t->nodes[c].visits) : 0;
	visit_timed(t, t_in);
	if (f->counters && counters_read(t, (long long *)f->v0) != PAPI_OK)
		f->counters = 0;
	/* a borrowed frame is followed (the trace nests the call in it), but
	 * it is not the thread's own region: no rotation, and the parts see
	 * the stack change at the call's own frame, entered next (and at each
	 * exit, so none keeps a frame that is gone) */
	f->borrowed = borrowed;
	rotate = borrowed ? NULL : __atomic_load_n(&tly_region_hooks.rotate_enter, __ATOMIC_RELAXED);
	if (rotate)
		rotate(t, c);   /* passes/: region rotation */
	tly_region_note(t, c, f->t0, 1, f->counters ? (const long long *)f->v0 : NULL);
	if (borrowed)
		return 0;
	tly_rt_parts_region_changed(t);   /* gpu/: ranges per region */
	tly_budget_tick(t);
	return 0;
}

int tly_rt_enter_at(struct tly_rt_thread *t, const char *name, int kind, int counters, int64_t t0)
{
	return enter(t, name, kind, counters, t0, 0);
}

int tly_rt_enter_borrowed(struct tly_rt_thread *t, const char *name, int kind, int counters)
{
	return enter(t, name, kind, counters, -1, 1);
}

/* A sampled read's visit (regions/budget.h): its values times the
 * region's N (the visits it stands for) apart from the exact sums; an
 * open frame at the thread's end (no visit) is not a sample. */
static void fold_sampled(struct tly_rt_thread *t, struct tly_rt_degrade *d, const struct tly_rt_frame *f,
			 const long long *v, int visit)
{
	if (!visit)
		return;
	for (int i = 0; i < t->nev; i++)
		d->scnt[i] += (v[i] - f->v0[i]) * d->sample_n;
	d->sampled++;
	d->weight += d->sample_n;
}

/* Add the open frame's time and counters so far to its node. */
static void fold(struct tly_rt_thread *t, struct tly_rt_frame *f, int64_t now, const long long *v, int visit)
{
	struct tly_rt_node *n = &t->nodes[f->node];

	n->visits += visit;
	if (f->timed) {
		n->incl_ns += now - f->t0;
		n->timed_visits += visit;
	}
	if (f->counters == 2 && v && n->deg) {
		fold_sampled(t, n->deg, f, v, visit);
	} else if (f->counters && v) {
		for (int i = 0; i < t->nev; i++)
			n->cnt[i] += v[i] - f->v0[i];
		n->counted = 1;
		n->counted_visits += visit;
	}
}

int tly_rt_exit_at(struct tly_rt_thread *t, int64_t now)
{
	long long v[TLY_RT_MAX_EVENTS];
	struct tly_rt_frame *f;
	tly_region_rotate_fn rotate;
	int ok;

	if (t->stopped)
		return 0;
	if (t->truncated_depth) {
		t->truncated_depth--;
		return 0;
	}
	if (t->depth <= 1)
		return -1;
	f = &t->stack[t->depth - 1];
	rotate = __atomic_load_n(&tly_region_hooks.rotate_leave, __ATOMIC_RELAXED);
	if (rotate && !f->borrowed)
		rotate(t, f->node);   /* passes/: region rotation */
	ok = f->counters && counters_read(t, v) == PAPI_OK;
	if (now < 0)
		now = f->timed ? tly_rt_now() : 0;
	fold(t, f, now, ok ? v : NULL, !f->borrowed);
	t->depth--;
	tly_region_note(t, f->node, now, 0, ok ? v : NULL);
	tly_rt_parts_region_changed(t);   /* a borrowed one too: the thread's stack is shorter */
	return 0;
}

int tly_rt_exit_named(struct tly_rt_thread *t, const char *name)
{
	int at = -1;

	if (t->stopped)
		return 0;
	for (int i = t->depth - 1; i >= 1 && at < 0; i--)
		if (!strcmp(t->nodes[t->stack[i].node].name, name))
			at = i;
	for (int i = t->depth - 1; i >= 1 && at < 0 && t->folded; i--)   /* a folded region */
		if (!strcmp(t->nodes[t->stack[i].node].name, TLY_RT_OVERFLOW_REGION))
			at = i;
	if (at < 0)
		return -1;
	while (t->depth > at && tly_rt_exit(t) == 0)
		;
	return 0;
}

void tly_rt_exit_kind(struct tly_rt_thread *t, int kind)
{
	if (t->stopped)
		return;
	for (int i = t->depth - 1; i >= 1; i--)
		if (t->nodes[t->stack[i].node].kind == kind) {
			while (t->depth > i && tly_rt_exit(t) == 0)
				;
			return;
		}
}

/* Fold every open frame (root included) without counting a visit for
 * regions still open: their time so far is kept, so a parent still
 * includes its children. */
void tly_rt_thread_stop(struct tly_rt_thread *t)
{
	long long v[TLY_RT_MAX_EVENTS];
	int64_t now;
	int ok;

	if (t->stopped || !t->depth)
		return;
	ok = t->evset >= 0 && PAPI_read(t->evset, v) == PAPI_OK;
	now = tly_rt_now();
	t->truncated_depth = 0;
	/* libomp reports a worker's implicit-task end lazily (at the next fork
	 * or thread end); when a rank stops, its OpenMP workers are idle, so
	 * their open OpenMP frames are complete visits. */
	for (int i = t->depth - 1; i >= 0; i--)
		fold(t, &t->stack[i], now, ok ? v : NULL,
		     i == 0 || (t->kind == 1 && t->nodes[t->stack[i].node].kind >= TLY_RK_OMP_PARALLEL));
	t->final_ns = t->nodes[0].incl_ns;
	t->stop_ns = now;
	t->stopped = 1;
}

/* The region tree's root "(thread)", opened when the thread's record is
 * made and closed with its end (runtime/rt_parts.h). */
static int open_root(struct tly_rt_thread *t)
{
	tly_rt_enter(t, "(thread)", TLY_RK_ROOT, 1);
	return 0;
}

const struct tly_rt_part tly_rt_part_regions = {
	.name = "regions",
	.thread_start = open_root,
	.thread_stop = tly_rt_thread_stop,
};
