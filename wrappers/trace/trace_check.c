/*
 * trace_check.c - the trace checks itself when it closes (issue 49): a
 * trace that is short says so, in one line of rank 0 and in the job
 * file's attribute trace_check, never silently.
 *
 *   - per thread and region, the enters the region layer's follower gave
 *     the trace equal the profile's visits since the trace began (the
 *     trace's own leaving-out -- filters, the event cap -- comes after
 *     the follower and is counted in tally::dropped_events);
 *   - per location, the enters written equal the leaves written;
 *   - every message written as sent is written as received: sends add
 *     one and receives take one from a sum per (sender, receiver, tag,
 *     bytes) hashed into TLY_TRACE_MSG_BUCKETS, summed over the job.
 *
 * The base of a thread's visits: 0 for a thread listed after the archive
 * opened (all its visits are traced), the visits when the archive opened
 * for the thread that opened it, those when its location was made for a
 * thread that made its own; another thread of before the opening with no
 * location of its own is not checked (its visits then are not known).
 */
#include "trace/trace.h"
#include "trace/trace_state.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t *snapshot(const struct tly_rt_thread *t, int32_t *n)
{
	int64_t *b = malloc((size_t)(t->nnodes ? t->nnodes : 1) * sizeof *b);

	*n = b ? t->nnodes : 0;
	for (int32_t i = 0; b && i < t->nnodes; i++)
		b[i] = t->nodes[i].visits;
	return b;
}

void tly_trace_check_open(void)
{
	struct tly_trace_state *s = tly_trace();
	struct tly_rt_thread *t = tly_rt_self_tls;
	struct tly_rt_proc *p = tly_rt_proc();

	pthread_mutex_lock(&p->lock);
	s->nthreads0 = p->nthreads;
	pthread_mutex_unlock(&p->lock);
	if (t) {
		s->opener = t;
		s->base0 = snapshot(t, &s->nbase0);
	}
}

int tly_trace_check_seen(struct tly_trace_loc *l, int32_t node)
{
	if (node >= l->nseen) {
		int32_t n = node + 64 > 2 * l->nseen ? node + 64 : 2 * l->nseen;
		int64_t *p = realloc(l->seen, (size_t)n * sizeof *p);

		if (!p)
			return -1;
		memset(p + l->nseen, 0, (size_t)(n - l->nseen) * sizeof *p);
		l->seen = p;
		l->nseen = n;
	}
	l->seen[node]++;
	return 0;
}

void tly_trace_check_base(struct tly_trace_loc *l, int32_t leaving)
{
	const struct tly_trace_state *s = tly_trace();

	if (l->t == s->opener || l->t->index >= s->nthreads0)
		return;   /* known without a snapshot */
	l->base = snapshot(l->t, &l->nbase);
	if (leaving >= 0 && leaving < l->nbase)
		l->base[leaving]--;   /* the follower's replay enters it */
}

static uint32_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return (uint32_t)(h ^ (h >> 29));
}

void tly_trace_check_msg(uint32_t src, uint32_t dst, uint32_t tag, uint64_t bytes, int sign)
{
	uint32_t h = mix(mix(mix(mix(0, src), dst), tag), bytes) % TLY_TRACE_MSG_BUCKETS;

	__atomic_fetch_add(&tly_trace()->msg[h], sign, __ATOMIC_RELAXED);
}

static void name_missing(struct tly_trace_tally *a, const struct tly_rt_thread *t, int32_t node, int64_t want,
			 int64_t got)
{
	a->missing += want - got;
	if (want - got <= a->worst)
		return;
	a->worst = want - got;
	snprintf(a->first, sizeof a->first, "most: rank %d thread %d, %lld of %lld enters of %.*s traced",
		 tly_trace()->rank, t->index, (long long)got, (long long)want, (int)strcspn(t->nodes[node].name, (char[]){ TLY_RT_ADDR_SEP, 0 }),
		 t->nodes[node].name);
}

static int open_at_close(const struct tly_rt_thread *t, int32_t node)
{
	for (int i = 0; i < t->depth; i++)
		if (t->stack[i].node == node)
			return 1;
	return 0;
}

void tly_trace_check_thread(struct tly_rt_thread *t, struct tly_trace_loc *l, struct tly_trace_tally *a)
{
	const struct tly_trace_state *s = tly_trace();
	const int64_t *base = NULL;
	int32_t nbase = 0;

	if (t == s->opener) {
		base = s->base0;
		nbase = s->nbase0;
	} else if (l && l->base) {
		base = l->base;
		nbase = l->nbase;
	} else if (t->index < s->nthreads0) {
		return;   /* of before the opening, with no base: not known */
	}
	for (int32_t i = 0; i < t->nnodes; i++) {
		int64_t want = t->nodes[i].visits - (i < nbase ? base[i] : 0);
		int64_t got = l && i < l->nseen ? l->seen[i] : 0;

		/* a region open at the close: its enter is traced, its visit is
		 * counted or not (runtime/region.c's thread stop) */
		if (want > got && !(open_at_close(t, i) && got == want + 1))
			name_missing(a, t, i, want, got);
	}
}

void tly_trace_check_closed(const struct tly_trace_loc *l, struct tly_trace_tally *a)
{
	a->unbalanced += l->went != l->wleave;
}

/* The job's sums on every rank; the first rank with something missing
 * tells what. */
static void reduce(void *comm, struct tly_trace_tally *a, int64_t *msg)
{
	int64_t v[3] = { a->missing, a->unbalanced, 0 };
	struct { int v, rank; } who = { a->missing || a->unbalanced, -tly_trace()->rank }, first;

	if (!comm)
		return;
	PMPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT64_T, MPI_SUM, *(MPI_Comm *)comm);
	PMPI_Allreduce(MPI_IN_PLACE, msg, TLY_TRACE_MSG_BUCKETS, MPI_INT64_T, MPI_SUM, *(MPI_Comm *)comm);
	PMPI_Allreduce(&who, &first, 1, MPI_2INT, MPI_MAXLOC, *(MPI_Comm *)comm);
	PMPI_Bcast(a->first, (int)sizeof a->first, MPI_CHAR, -first.rank, *(MPI_Comm *)comm);
	a->missing = v[0];
	a->unbalanced = v[1];
}

void tly_trace_check_job(void *comm, struct tly_trace_tally *a)
{
	struct tly_trace_state *s = tly_trace();
	int64_t msg[TLY_TRACE_MSG_BUCKETS];
	int64_t lost = __atomic_load_n(&s->unlocated, __ATOMIC_RELAXED);

	for (int i = 0; i < TLY_TRACE_MSG_BUCKETS; i++)
		msg[i] = __atomic_load_n(&s->msg[i], __ATOMIC_RELAXED);
	if (comm)
		PMPI_Allreduce(MPI_IN_PLACE, &lost, 1, MPI_INT64_T, MPI_SUM, *(MPI_Comm *)comm);
	reduce(comm, a, msg);
	for (int i = 0; i < TLY_TRACE_MSG_BUCKETS; i++)
		a->unmatched += msg[i] < 0 ? -msg[i] : msg[i];
	s->check[0] = '\0';
	if (a->missing || a->unbalanced || a->unmatched || lost)
		snprintf(s->check, sizeof s->check,
			 "the trace is incomplete: %lld enters the profile counts are missing (%s), %lld location(s) "
			 "with enters != leaves, %lld message(s) without their other end, %lld events of threads "
			 "without a location",
			 (long long)a->missing, a->first[0] ? a->first : "none", (long long)a->unbalanced,
			 (long long)a->unmatched, (long long)lost);
	s->checked = 1;
	if (s->check[0] && s->rank == 0)
		tly_rt_log(1, "%s (the file's attribute trace_check)", s->check);
}
