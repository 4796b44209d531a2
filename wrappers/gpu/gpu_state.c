/*
 * gpu_state.c - the GPU metrics' shared state, below the files that read
 * it: the plan's copy, the launches recorded per bound context (in launch
 * order, matched to the profiler's ranges at the end) with their interned
 * kernel names, and the collected kernel statistics.
 */
#include "gpu/gpu_state.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_scope.h"

static struct {
	pthread_mutex_t lock;
	struct tly_gpu_plan plan;
	int64_t nl;           /* launches recorded on all contexts */
	char **kn;            /* distinct kernel names (kept to the end) */
	int64_t nkn, capkn;
	struct tly_gpu_kstat *ks;
	int64_t nks;
} gs = { .lock = PTHREAD_MUTEX_INITIALIZER };

void tly_gpu_state_plan(const struct tly_gpu_plan *p)
{
	pthread_mutex_lock(&gs.lock);
	gs.plan = *p;
	pthread_mutex_unlock(&gs.lock);
}

/* The interned copy of a kernel name (launches repeat a few kernels);
 * NULL when out of memory.  Called with gs.lock held. */
static const char *intern(const char *name)
{
	char *c;

	for (int64_t i = gs.nkn; i-- > 0;)
		if (!strcmp(gs.kn[i], name))
			return gs.kn[i];
	if (gs.nkn == gs.capkn) {
		int64_t cap = gs.capkn ? 2 * gs.capkn : 64;
		char **m = realloc(gs.kn, (size_t)cap * sizeof *gs.kn);

		if (!m)
			return NULL;
		gs.kn = m;
		gs.capkn = cap;
	}
	if (!(c = strdup(name)))
		return NULL;
	gs.kn[gs.nkn++] = c;
	return c;
}

/* Launch k of binding b (gs.lock held). */
static void record(struct tly_gpu_bind *b, struct tly_rt_thread *t, const char *name)
{
	struct tly_gpu_launch_rec *x;

	if (b->nl == b->cap) {
		int64_t cap = b->cap ? 2 * b->cap : 256;
		void *m = realloc(b->l, (size_t)cap * sizeof *b->l);

		if (m) {
			b->l = m;
			b->cap = cap;
		}
	}
	if (b->nl == b->cap)
		return;
	x = &b->l[b->nl++];
	x->t = t;
	tly_gpu_scope_of(t, &x->pt, &x->node);
	x->name = intern(name ? name : "?");
	if (!x->name)
		x->name = "?";
	gs.nl++;
}

void tly_gpu_state_launch(struct tly_gpu_bind *b, struct tly_rt_thread *t, const char *name)
{
	pthread_mutex_lock(&gs.lock);
	b->seen++;
	if (b->state == TLY_GPU_BIND_ON && t)
		record(b, t, name);
	pthread_mutex_unlock(&gs.lock);
}

int64_t tly_gpu_state_launches(void)
{
	int64_t nl;

	pthread_mutex_lock(&gs.lock);
	nl = gs.nl;
	pthread_mutex_unlock(&gs.lock);
	return nl;
}

void tly_gpu_state_view(struct tly_gpu_view *v)
{
	pthread_mutex_lock(&gs.lock);
	v->n = gs.plan.n;
	v->image_pass = gs.plan.image ? gs.plan.pass : -1;
	v->image_last = gs.plan.image && gs.plan.pass == gs.plan.host_passes - 1;
	v->nl = gs.nl;
	v->ks = &gs.ks;
	v->nks = &gs.nks;
	pthread_mutex_unlock(&gs.lock);
}
