/*
 * cuda_pcsamp_registry.c - the PC sampling sessions of every context: one
 * list guarded by one lock, CUPTI called under it.  CUPTI may call back
 * (module load/unload, context teardown) on the thread that holds the lock,
 * inside Enable or Disable: the hooks then act without locking
 * (tly_pcs_held) instead of deadlocking.
 */
#include "cuda_pcsamp_internal.h"

#include <pthread.h>
#include <stdlib.h>

#include "papi.h"
#include "services/err_detail.h"

struct tly_pcs_registry tly_pcs_reg = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

static _Thread_local int held;

void tly_pcs_lock(void)
{
	pthread_mutex_lock(&tly_pcs_reg.lock);
	held = 1;
}

void tly_pcs_unlock(void)
{
	held = 0;
	pthread_mutex_unlock(&tly_pcs_reg.lock);
}

/* Does this thread hold the lock (inside a CUPTI call made under it)? */
int tly_pcs_held(void)
{
	return held;
}

const struct tly_cu_pcs_fns *tly_pcs_fns(void)
{
	return tly_cu_pcs_fns(NULL);
}

struct tly_pcs_sess *tly_pcs_find_locked(CUcontext ctx)
{
	for (struct tly_pcs_sess *s = tly_pcs_reg.head; s; s = s->next)
		if (s->ctx == ctx)
			return s;
	return NULL;
}

void tly_pcs_sess_free(struct tly_pcs_sess *s)
{
	tly_pcs_data_free(s->data);
	free(s->names);
	free(s->idx);
	free(s->sel);
	free(s->sel_idx);
	free(s->counted);
	free(s);
}

/* The session of ctx (NULL: current context).  A known context pointer is
 * looked up first: its context may be gone (records kept after teardown). */
struct tly_pcs_sess *tly_pcs_lock_sess(void *ctx_in, int *rc)
{
	CUcontext ctx = (CUcontext)ctx_in;
	struct tly_pcs_sess *s = NULL;
	int dev;

	*rc = PAPI_OK;
	if (ctx) {
		tly_pcs_lock();
		s = tly_pcs_find_locked(ctx);
		if (s)
			return s;
		tly_pcs_unlock();
	}
	*rc = tly_cu_ctx_resolve(ctx_in, &ctx, &dev);
	if (*rc != PAPI_OK)
		return NULL;
	tly_pcs_lock();
	s = tly_pcs_find_locked(ctx);
	if (s)
		return s;
	tly_pcs_unlock();
	*rc = tly_err_set(PAPI_ENOTRUN, "PC sampling was never enabled on this context");
	return NULL;
}
