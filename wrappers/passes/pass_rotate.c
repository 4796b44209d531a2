/*
 * pass_rotate.c - region rotation.  The k-th (outermost) visit of the
 * region named TALLY_PASS_REGION on a thread counts pass k mod P.  All
 * ranks visit their time-step region in step, so every rank counts the
 * same pass in the same visit without any communication.  Each thread
 * holds one event set per pass, started at the region's entry and
 * stopped at its exit; the per-pass sums are extrapolated by the writer.
 */
#include "passes/passes.h"

#include <stdlib.h>
#include <string.h>

#include "papi.h"

#define TLY_ROT_SLOTS 8   /* distinct tree nodes of the region per thread */

struct rot_thread {
	const struct tly_rt_thread *t;
	int es[TLY_PASS_MAX_EVENTS];          /* one event set per pass */
	int ev_of[TLY_PASS_MAX_EVENTS][TLY_PASS_MAX_EVENTS];  /* [pass][slot] -> event */
	int nin[TLY_PASS_MAX_EVENTS];         /* events per pass */
	int failed;
	int depth;                            /* nesting of the rotated region */
	int running, cur;                     /* pass and slot of the open visit */
	int64_t k;                            /* outermost visits started */
	int nacc;
	struct tly_pass_acc acc[TLY_ROT_SLOTS];
	struct rot_thread *next;
};

static struct {
	pthread_mutex_t lock;
	struct rot_thread *list;
} rot = { .lock = PTHREAD_MUTEX_INITIALIZER };

static _Thread_local struct rot_thread *rself;

static int build_sets(struct rot_thread *r, const struct tly_rt_sched *s)
{
	for (int p = 0; p < s->npasses; p++) {
		r->es[p] = PAPI_NULL;
		if (PAPI_create_eventset(&r->es[p]) != PAPI_OK)
			return -1;
		for (int i = 0; i < s->nev; i++) {
			int code;

			if (s->pass_of[i] != p)
				continue;
			if (PAPI_event_name_to_code(s->names[i], &code) != PAPI_OK
			    || PAPI_add_event(r->es[p], code) != PAPI_OK)
				return -1;
			r->ev_of[p][r->nin[p]++] = i;
		}
	}
	return 0;
}

static struct rot_thread *self(const struct tly_rt_thread *t)
{
	struct rot_thread *r = rself;

	if (r)
		return r;
	r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->t = t;
	r->running = -1;
	if (build_sets(r, &tly_pass_state()->cpu) < 0) {
		tly_rt_log(1, "thread %ld: the pass event sets could not be built; no pass values here", t->ktid);
		r->failed = 1;
	}
	pthread_mutex_lock(&rot.lock);
	r->next = rot.list;
	rot.list = r;
	pthread_mutex_unlock(&rot.lock);
	rself = r;
	return r;
}

static int is_rotated(const struct tly_rt_thread *t, int32_t n)
{
	/* MPI call regions are never rotated (their fast path skips the hooks) */
	return tly_pass_state()->rotate && t->nodes[n].kind != TLY_RK_MPI
	       && !strcmp(t->nodes[n].name, tly_rt_proc()->opt.raw.pass_region);
}

static int slot_of(struct rot_thread *r, int32_t n)
{
	for (int i = 0; i < r->nacc; i++)
		if (r->acc[i].node == n)
			return i;
	if (r->nacc == TLY_ROT_SLOTS)
		return -1;
	pthread_mutex_lock(&rot.lock);   /* the writer may be walking the slots */
	r->acc[r->nacc].node = n;
	r->nacc++;
	pthread_mutex_unlock(&rot.lock);
	return r->nacc - 1;
}

void tly_pass_enter(struct tly_rt_thread *t, int32_t n)
{
	struct rot_thread *r;
	int p;

	if (!is_rotated(t, n) || !(r = self(t)) || r->failed || r->depth++ > 0)
		return;
	p = (int)(r->k++ % tly_pass_state()->cpu.npasses);
	r->cur = slot_of(r, n);
	if (r->cur < 0 || PAPI_start(r->es[p]) != PAPI_OK)
		return;
	r->running = p;
}

void tly_pass_exit(struct tly_rt_thread *t, int32_t n)
{
	struct rot_thread *r;
	long long v[TLY_PASS_MAX_EVENTS];
	struct tly_pass_acc *a;
	int p;

	if (!tly_pass_state()->rotate || !(r = rself) || !r->depth || !is_rotated(t, n) || --r->depth > 0 || r->running < 0)
		return;
	p = r->running;
	r->running = -1;
	if (PAPI_stop(r->es[p], v) != PAPI_OK)
		return;
	a = &r->acc[r->cur];
	for (int j = 0; j < r->nin[p]; j++)
		a->value[r->ev_of[p][j]] += v[j];
	a->visits[p]++;
}

void tly_pass_foreach(void (*fn)(const struct tly_rt_thread *t, const struct tly_pass_acc *a, void *arg),
		      void *arg)
{
	pthread_mutex_lock(&rot.lock);
	for (struct rot_thread *r = rot.list; r; r = r->next)
		for (int i = 0; i < r->nacc; i++)
			fn(r->t, &r->acc[i], arg);
	pthread_mutex_unlock(&rot.lock);
}
