/*
 * trace_loc.c - a thread's location in the trace.  The region layer calls
 * tly_trace_follow at every enter and leave it records (so the trace's
 * enters equal the profile's visits); this file decides what is written:
 * regions left out by name or depth (filtered, their insides too), short
 * regions held back until their leave shows their length (min_ns), and
 * the per-location cap, beyond which events are dropped and counted --
 * except the leaves of regions whose enter was written, so the trace
 * stays well nested.  Events go straight into OTF2's buffer for the
 * location; OTF2 writes it to the location's file when it fills
 * (trace_archive.c's memory callbacks bound it).
 */
#include "trace/trace.h"
#include "trace/trace_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtx/nvtx.h"

static _Thread_local struct tly_trace_loc *tls_loc;

static int grow(struct tly_trace_loc *l)
{
	int cap = l->cap ? 2 * l->cap : 64;
	void *p = realloc(l->fr, (size_t)cap * sizeof *l->fr);

	if (!p)
		return -1;
	l->fr = p;
	l->cap = cap;
	return 0;
}

static int name_listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	while (*list) {
		const char *e = strchr(list, ',');
		size_t k = e ? (size_t)(e - list) : strlen(list);

		if (k && list[k - 1] == '*' ? k - 1 <= n && !strncmp(list, name, k - 1)
					    : k == n && !strncmp(list, name, n))
			return 1;
		list += k + (e != NULL);
	}
	return 0;
}

/* Whether node's name is left out (cached per node). */
static int excluded(struct tly_trace_loc *l, int32_t node)
{
	const char *list = tly_trace()->opt.exclude;
	char name[TLY_RT_NAME];
	const char *s;

	if (!*list)
		return 0;
	if (node >= l->nexcl) {
		int32_t n = node + 64;
		uint8_t *p = realloc(l->excl, (size_t)n);

		if (!p)
			return 0;
		memset(p + l->nexcl, 0, (size_t)(n - l->nexcl));
		l->excl = p;
		l->nexcl = n;
	}
	if (!l->excl[node]) {
		s = l->t->nodes[node].name;
		snprintf(name, sizeof name, "%.*s", (int)strcspn(s, (char[]){ TLY_RT_ADDR_SEP, 0 }), s);
		l->excl[node] = name_listed(list, name) ? 2 : 1;
	}
	return l->excl[node] == 2;
}

/* Whether node's kind is one TALLY_TRACE_KINDS traces (a root always). */
static int kind_traced(const struct tly_trace_loc *l, int32_t node)
{
	unsigned k = tly_trace()->opt.kinds;
	int32_t kind = l->t->nodes[node].kind;

	switch (kind) {
	case TLY_RK_USER:
		return !!(k & TLY_TK_USER);
	case TLY_RK_MPI:
		return !!(k & TLY_TK_MPI);
	case TLY_RK_NVTX:
		return !!(k & TLY_TK_NVTX);
	default:
		return kind >= TLY_RK_OMP_PARALLEL && kind <= TLY_RK_OMP_TASK ? !!(k & TLY_TK_OPENMP) : 1;
	}
}

static void write_enter(struct tly_trace_loc *l, struct tly_trace_frame *f)
{
	if (f->ts < l->last_ts)
		f->ts = l->last_ts;
	OTF2_EvtWriter_Enter(l->w, NULL, (OTF2_TimeStamp)f->ts, (OTF2_RegionRef)f->node);
	l->last_ts = f->ts;
	l->kept++;
	l->went++;
	f->state = TLY_TF_WRITTEN;
}

int tly_trace_admit(struct tly_trace_loc *l, int64_t *ts)
{
	int64_t cap = tly_trace()->opt.max_events;

	if (l->nfr && l->fr[l->nfr - 1].state >= TLY_TF_DROPPED) {
		l->dropped += l->fr[l->nfr - 1].state == TLY_TF_DROPPED;
		l->filtered += l->fr[l->nfr - 1].state == TLY_TF_FILTERED;
		return 0;
	}
	/* the held-back enters (skipped regions among them stay skipped) */
	for (int i = l->nfr - l->npending; i < l->nfr; i++) {
		if (l->fr[i].state != TLY_TF_PENDING)
			continue;
		if (cap && l->kept >= cap) {   /* they and what is inside are dropped */
			for (int k = i; k < l->nfr; k++)
				if (l->fr[k].state == TLY_TF_PENDING) {
					l->fr[k].state = TLY_TF_DROPPED;
					l->dropped++;
				}
			l->npending = 0;
			l->dropped++;
			return 0;
		}
		write_enter(l, &l->fr[i]);
	}
	l->npending = 0;
	if (cap && l->kept >= cap) {
		l->dropped++;
		return 0;
	}
	if (*ts < l->last_ts)
		*ts = l->last_ts;
	l->last_ts = *ts;
	l->kept++;
	return 1;
}

/* The counters read at an enter or leave that was written, as a Metric
 * event of class 0 (trace_defs.c: one member per event of TALLY_EVENTS)
 * at the same time, when TALLY_TRACE_COUNTERS asks; not an event the cap
 * counts. */
static void metric(struct tly_trace_loc *l, int64_t ts, const long long *v)
{
	OTF2_Type types[TLY_RT_MAX_EVENTS];
	OTF2_MetricValue mv[TLY_RT_MAX_EVENTS];
	int n = l->t->nev;

	if (!v || n <= 0 || !tly_trace()->opt.counters)
		return;
	for (int i = 0; i < n; i++) {
		types[i] = OTF2_TYPE_INT64;
		mv[i].signed_int = v[i];
	}
	OTF2_EvtWriter_Metric(l->w, NULL, (OTF2_TimeStamp)ts, 0, (uint8_t)n, types, mv);
	l->metrics++;
}

static void on_enter(struct tly_trace_loc *l, int32_t node, int64_t ts, const long long *v)
{
	const struct tly_trace_opts *o = &tly_trace()->opt;
	struct tly_trace_frame *f;
	int inherit = l->nfr && l->fr[l->nfr - 1].state >= TLY_TF_DROPPED;

	if (tly_trace_check_seen(l, node) != 0 || (l->nfr == l->cap && grow(l) != 0)) {
		l->dropped++;   /* no memory: counted, and missing in the check */
		return;
	}
	f = &l->fr[l->nfr++];
	f->node = node;
	f->ts = ts;
	if (!l->first_ts)
		l->first_ts = ts;
	if (inherit) {
		f->state = l->fr[l->nfr - 2].state;
		l->dropped += f->state == TLY_TF_DROPPED;
		l->filtered += f->state == TLY_TF_FILTERED;
	} else if ((o->max_depth && l->nfr > o->max_depth) || excluded(l, node)) {
		f->state = TLY_TF_FILTERED;
		l->filtered++;
	} else if (!kind_traced(l, node)) {
		/* left out, what is inside traced: within a held-back run it
		 * is one of the run (the run stays the top frames) */
		f->state = TLY_TF_SKIPPED;
		l->filtered++;
		l->npending += l->npending > 0;
	} else if (o->min_ns) {
		f->state = TLY_TF_PENDING;
		l->npending++;
	} else {
		int64_t t = ts;

		l->nfr--;   /* admitted as an event of the parent */
		if (tly_trace_admit(l, &t)) {
			l->kept--;
			f->ts = t;
			l->nfr++;
			write_enter(l, f);
			metric(l, f->ts, v);
		} else {
			l->nfr++;
			f->state = TLY_TF_DROPPED;
		}
	}
}

static void on_leave(struct tly_trace_loc *l, int64_t ts, const long long *v)
{
	struct tly_trace_frame *f;

	if (!l->nfr)
		return;
	f = &l->fr[l->nfr - 1];
	if (f->state == TLY_TF_PENDING && ts - f->ts < tly_trace()->opt.min_ns) {
		l->nfr--;
		l->npending--;
		l->filtered += 2;
		return;
	}
	if (f->state == TLY_TF_SKIPPED) {   /* the top frame: in the held-back run when there is one */
		l->filtered++;
		l->npending -= l->npending > 0;
		l->nfr--;
		return;
	}
	if (f->state == TLY_TF_DROPPED || f->state == TLY_TF_FILTERED) {
		l->dropped += f->state == TLY_TF_DROPPED;
		l->filtered += f->state == TLY_TF_FILTERED;
		l->nfr--;
		return;
	}
	if (f->state == TLY_TF_PENDING) {
		/* long enough: its enter (and held-back parents') go out now,
		 * past the cap too: the cap drops no region whose leave it sees */
		for (int i = l->nfr - l->npending; i < l->nfr; i++)
			if (l->fr[i].state == TLY_TF_PENDING)
				write_enter(l, &l->fr[i]);
		l->npending = 0;
	}
	if (ts < l->last_ts)
		ts = l->last_ts;
	metric(l, ts, v);
	OTF2_EvtWriter_Leave(l->w, NULL, (OTF2_TimeStamp)ts, (OTF2_RegionRef)f->node);
	l->last_ts = ts;
	l->kept++;
	l->wleave++;
	l->nfr--;
}

static struct tly_trace_loc *loc_new(struct tly_rt_thread *t)
{
	struct tly_trace_state *s = tly_trace();
	struct tly_trace_loc *l;

	if (t->index >= (1 << TLY_TRACE_TSHIFT) || !(l = calloc(1, sizeof *l)))
		return NULL;
	l->t = t;
	l->id = ((uint64_t)s->rank << TLY_TRACE_TSHIFT) | (uint64_t)t->index;
	l->w = OTF2_Archive_GetEvtWriter(s->ar, l->id);
	if (!l->w) {
		free(l);
		return NULL;
	}
	pthread_mutex_lock(&s->lock);
	l->next = s->locs;
	s->locs = l;
	pthread_mutex_unlock(&s->lock);
	return l;
}

struct tly_trace_loc *tly_trace_loc_of(struct tly_rt_thread *t, int open_below)
{
	struct tly_trace_loc *l = tls_loc;

	if (l && l->t == t)
		return l;
	/* a thread's record gets its index when it joins the list, after its
	 * root is entered: until then it has no location (the root is entered
	 * at its first event after) */
	if (!__atomic_load_n(&t->listed, __ATOMIC_ACQUIRE))
		return NULL;
	l = loc_new(t);
	if (!l)
		return NULL;
	tly_trace_check_base(l, open_below > t->depth ? t->stack[t->depth].node : -1);
	/* the regions already open (the thread's root, regions entered
	 * before the archive opened) are entered at their start times */
	for (int i = 0; i < open_below; i++)
		on_enter(l, t->stack[i].node, t->stack[i].t0, t->stack[i].counters ? (const long long *)t->stack[i].v0 : NULL);
	tls_loc = l;
	return l;
}

struct tly_trace_loc *tly_trace_loc_adopt(struct tly_rt_thread *t)
{
	struct tly_trace_loc *l = loc_new(t);

	for (int i = 0; l && i < t->depth; i++)
		on_enter(l, t->stack[i].node, t->stack[i].t0, t->stack[i].counters ? (const long long *)t->stack[i].v0 : NULL);
	return l;
}

void tly_trace_follow(struct tly_rt_thread *t, int32_t node, int64_t ts, int enter, const long long *v)
{
	struct tly_trace_loc *l;

	if (!__atomic_load_n(&tly_trace()->open, __ATOMIC_ACQUIRE))
		return;
	if (t->index == tly_trace()->opt.lose_thread && __atomic_load_n(&t->listed, __ATOMIC_ACQUIRE))
		return;   /* the test setting TALLY_TRACE_TEST_LOSE: lost without a count */
	/* first event of the thread: its open regions below this one (a
	 * leave's frame is still at t->stack[t->depth]) */
	l = tly_trace_loc_of(t, enter ? t->depth - 1 : t->depth + 1);
	if (!l) {
		if (__atomic_load_n(&t->listed, __ATOMIC_ACQUIRE))   /* not the root's enter before the list */
			__atomic_fetch_add(&tly_trace()->unlocated, 1, __ATOMIC_RELAXED);
		return;
	}
	if (enter)
		on_enter(l, node, ts, v);
	else
		on_leave(l, ts, v);
}

void tly_trace_loc_close(struct tly_trace_loc *l, int64_t ts)
{
	/* a thread the region layer stopped: its regions end when the
	 * profile's do (the job's end time, taken before every thread is
	 * stopped, would cut them short by the stopping of the others) */
	if (l->t->stopped && l->t->stop_ns)
		ts = l->t->stop_ns;
	else if (l->stop_ts && l->stop_ts < ts)
		ts = l->stop_ts;
	while (l->nfr)
		on_leave(l, ts, NULL);
}
