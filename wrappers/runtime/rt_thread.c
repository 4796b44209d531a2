/*
 * rt_thread.c - the calling thread's record: created on first use (or at
 * OMPT thread_begin), with its own event set started in the runtime's
 * private core instance.  Records stay on the process list until exit so
 * the writer sees threads that have ended.
 */
#include "runtime/rt.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "papi.h"

/* the calling thread's record (rt.h: why initial-exec) */
_Thread_local struct tly_rt_thread *tly_rt_self_tls __attribute__((tls_model("initial-exec")));

static void start_counters(struct tly_rt_thread *t, struct tly_rt_proc *p)
{
	int es = PAPI_NULL;

	t->evset = -1;
	if (!p->nev || PAPI_create_eventset(&es) != PAPI_OK)
		return;
	for (int i = 0; i < p->nev; i++)
		if (PAPI_add_event(es, p->codes[i]) != PAPI_OK)
			goto fail;
	if (PAPI_start(es) != PAPI_OK)
		goto fail;
	t->evset = es;
	t->nev = p->nev;
	return;
fail:
	tly_rt_log(1, "thread %ld: counters could not be started (%s); this thread records time only",
		   t->ktid, PAPI_strerror(PAPI_EMISC));
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
}

static struct tly_rt_thread *create(struct tly_rt_proc *p, int kind)
{
	struct tly_rt_thread *t = calloc(1, sizeof *t);

	if (!t)
		return NULL;
	t->kind = kind;
	t->ktid = (long)syscall(SYS_gettid);
	t->stack = calloc((size_t)p->opt.max_depth + 2, sizeof *t->stack);
	t->mpi = calloc((size_t)tly_mpi_nfuncs, sizeof *t->mpi);
	if (!t->stack || !t->mpi) {
		free(t->stack);
		free(t->mpi);
		free(t);
		return NULL;
	}
	start_counters(t, p);
	tly_rt_enter(t, "(thread)", TLY_RK_ROOT, 1);
	pthread_mutex_lock(&p->lock);
	t->index = p->nthreads++;
	t->next = p->threads;
	p->threads = t;
	pthread_mutex_unlock(&p->lock);
	return t;
}

struct tly_rt_thread *tly_rt_thread_new_self(int kind)
{
	if (!tly_rt_self_tls)
		tly_rt_self_tls = create(tly_rt_proc(), kind);
	return tly_rt_self_tls;
}

struct tly_rt_thread *tly_rt_self_kind(int kind)
{
	if (tly_rt_self_tls)
		return tly_rt_self_tls;
	if (!tly_rt_enabled())
		return NULL;
	return tly_rt_thread_new_self(kind);
}

struct tly_rt_thread *tly_rt_self_slow(void)
{
	return tly_rt_self_kind(2);
}
