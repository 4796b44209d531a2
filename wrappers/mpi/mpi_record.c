/*
 * mpi_record.c - bracketing of one MPI call: per-thread statistics (no
 * lock, nothing allocated) and, when TALLY_MPI_REGIONS is on, a region
 * named after the call (time only unless TALLY_MPI_COUNTERS).  The time-
 * only region has a fast path: the call's node under the current parent is
 * cached per thread and function, so a repeated call pushes and pops a
 * frame without searching the tree; anything unusual (a new parent, depth
 * limits, a frame that is not the call's) takes the general region code.
 */
#include "mpi/mpi_support.h"
#include "mpi/mpi_thread.h"

#include <dlfcn.h>
#include <stdlib.h>

#include "runtime/rt_parts.h"

static void enter_time_only(struct tly_rt_thread *t, struct tly_mpi_stat *s, int id, int64_t t0, int max)
{
	int32_t parent = t->stack[t->depth - 1].node;
	struct tly_rt_frame *f;

	if (s->rparent != parent + 1 || t->truncated_depth || t->depth > max) {
		tly_rt_enter_at(t, tly_mpi_names[id], TLY_RK_MPI, 0, t0);
		if (!t->truncated_depth && t->depth > 1) {
			s->rparent = parent + 1;
			s->rnode = t->stack[t->depth - 1].node;
		}
		return;
	}
	f = &t->stack[t->depth++];
	f->node = s->rnode;
	f->counters = 0;
	f->borrowed = 0;
	f->t0 = t0;
	tly_region_note(t, f->node, t0, 1, NULL);
}

static void exit_time_only(struct tly_rt_thread *t, const struct tly_mpi_stat *s, int64_t now)
{
	struct tly_rt_frame *f = &t->stack[t->depth - 1];
	struct tly_rt_node *n;

	if (t->truncated_depth || t->depth <= 1 || f->node != s->rnode || f->counters) {
		tly_rt_exit_at(t, now);
		return;
	}
	n = &t->nodes[f->node];
	n->visits++;
	n->incl_ns += now - f->t0;
	t->depth--;
	tly_region_note(t, f->node, now, 0, NULL);
}

int tly_mpi_begin(struct tly_mpi_call *c, int id, const void *ra)
{
	struct tly_rt_proc *p = tly_rt_proc();
	struct tly_rt_thread *t;

	if (!p->active || !p->opt.mpi || p->finished)
		return 0;
	t = tly_rt_self();
	if (!t || tly_mpi_thread(t)->in_mpi || t->stopped)
		return 0;
	tly_mpi_thread(t)->in_mpi = 1;
	c->t = t;
	c->id = id;
	c->region = p->opt.mpi_regions;
	c->sites = p->opt.mpi_callsites;
	c->ra = ra;
	c->msg = tly_mpi_msg_on();
	c->coll = 0;
	c->scratch = NULL;
	if (c->region && p->opt.mpi_counters) {
		tly_rt_enter(t, tly_mpi_names[id], TLY_RK_MPI, 1);
		c->t0 = tly_rt_now();
	} else {
		/* time only: the call and its region share one time stamp */
		c->t0 = tly_rt_now();
		if (c->region)
			enter_time_only(t, &tly_mpi_thread(t)->stat[id], id, c->t0, p->opt.max_depth);
	}
	return 1;
}

static int log2_bucket(int64_t bytes)
{
	int b = 0;

	if (bytes <= 0)
		return 0;
	b = 64 - __builtin_clzll((unsigned long long)bytes); /* 1 -> 1, 2..3 -> 2 ... */
	return b < TLY_RT_HIST ? b : TLY_RT_HIST - 1;
}

void tly_mpi_end(struct tly_mpi_call *c, int64_t sent, int64_t recv)
{
	struct tly_mpi_stat *s = &tly_mpi_thread(c->t)->stat[c->id];
	int64_t now = tly_rt_now();

	s->time_ns += now - c->t0;
	s->calls++;
	s->sent += sent;
	s->recv += recv;
	if (tly_mpi_carries[c->id])   /* MPI_Wait, MPI_Barrier...: no message, no bucket */
		s->hist[log2_bucket(sent > recv ? sent : recv)]++;
	if (c->sites) {
		uintptr_t pc[TLY_RT_SITE_DEPTH];

		tly_mpi_site_frames(c->ra, c->sites, pc);
		tly_mpi_site_add(c->t, c->id, pc, now - c->t0, sent, recv);
	}
	if (c->msg)
		tly_mpi_msg_end(c, sent, recv, now);
	if (c->region && tly_rt_proc()->opt.mpi_counters)
		tly_rt_exit(c->t);
	else if (c->region)
		exit_time_only(c->t, s, now);
	tly_mpi_thread(c->t)->in_mpi = 0;
}

void *tly_mpi_fsym(void **slot, const char *sym, const char *fallback)
{
	void *f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (f)
		return f;
	f = dlsym(RTLD_NEXT, sym);
	if (!f)
		f = dlsym(RTLD_NEXT, fallback);
	if (!f) {
		tly_rt_log(1, "no MPI library defines %s; the call is skipped", sym);
		return NULL;
	}
	__atomic_store_n(slot, f, __ATOMIC_RELEASE);
	return f;
}

/* Each thread's statistics per MPI function, in its slot (runtime/rt_parts.h). */
static int stats_new(struct tly_rt_thread *t)
{
	struct tly_mpi_thread *m = calloc(1, sizeof *m + (size_t)tly_mpi_nfuncs * sizeof *m->stat);

	t->slot[TLY_RT_PART_mpi] = m;
	return m ? 0 : -1;
}

/* A record dropped at its creation: its call sites come at its first
 * MPI call, so it has none. */
static void stats_free(struct tly_rt_thread *t)
{
	free(t->slot[TLY_RT_PART_mpi]);
	t->slot[TLY_RT_PART_mpi] = NULL;
}

const struct tly_rt_part tly_rt_part_mpi = {
	.name = "mpi",
	.thread_start = stats_new,
	.thread_free = stats_free,
};
