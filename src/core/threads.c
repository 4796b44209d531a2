/*
 * threads.c - the registry of threads known to PAPI.
 *
 * A thread is registered by PAPI_register_thread or implicitly on its first
 * event-set operation.  Records live on a list guarded by one mutex; each
 * thread also keeps a _Thread_local pointer to its own record so hot paths
 * never take the lock.
 */
#include "core/threads.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/thread_rec.h"

static struct {
	pthread_mutex_t lock;
	struct tly_thread *head;
	unsigned long (*_Atomic id_fn)(void);
	atomic_uint generation; /* bumped by shutdown: stale self pointers */
} reg = { .lock = PTHREAD_MUTEX_INITIALIZER };

static _Thread_local struct tly_thread *self;
static _Thread_local unsigned self_generation;

unsigned long tly_thread_id(void)
{
	unsigned long (*fn)(void) = atomic_load(&reg.id_fn);

	return fn ? fn() : (unsigned long)tly_gettid();
}

int tly_threads_set_id_fn(unsigned long (*fn)(void))
{
	atomic_store(&reg.id_fn, fn);
	return PAPI_OK;
}

int tly_threads_has_id_fn(void)
{
	return atomic_load(&reg.id_fn) != NULL;
}

struct tly_thread *tly_thread_current(void)
{
	if (self && self_generation != atomic_load(&reg.generation))
		self = NULL;
	return self;
}

struct tly_thread *tly_thread_self(void)
{
	struct tly_thread *t = tly_thread_current();

	if (t)
		return t;
	t = calloc(1, sizeof *t);
	if (!t)
		return NULL;
	t->tid = tly_thread_id();
	t->ktid = tly_gettid();
	pthread_mutex_lock(&reg.lock);
	t->next = reg.head;
	reg.head = t;
	self_generation = atomic_load(&reg.generation);
	pthread_mutex_unlock(&reg.lock);
	self = t;
	return t;
}

int tly_threads_unregister_self(void)
{
	struct tly_thread *t = tly_thread_current(), **pp;

	if (!t)
		return tly_err_set(PAPI_EINVAL, "the calling thread is not registered");
	for (int i = 0; i < TLY_THREAD_MAX_RUNNING; i++)
		if (t->running[i])
			return tly_err_set(PAPI_EISRUN, "the calling thread still has a running event set");
	pthread_mutex_lock(&reg.lock);
	for (pp = &reg.head; *pp; pp = &(*pp)->next) {
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	}
	pthread_mutex_unlock(&reg.lock);
	free(t);
	self = NULL;
	return PAPI_OK;
}

int tly_threads_list(PAPI_thread_id_t *tids, int *number)
{
	int n = 0;

	if (!number || (tids && *number <= 0))
		return tly_err_set(PAPI_EINVAL, "PAPI_list_threads: number must point to the size of tids");
	pthread_mutex_lock(&reg.lock);
	for (struct tly_thread *t = reg.head; t; t = t->next) {
		if (tids && n < *number)
			tids[n] = t->tid;
		n++;
	}
	pthread_mutex_unlock(&reg.lock);
	if (tids && n > *number)
		n = *number;
	*number = n;
	return PAPI_OK;
}

static int fill_all(int tag, PAPI_all_thr_spec_t *all)
{
	int n = 0;

	if (!all || all->num <= 0)
		return tly_err_set(PAPI_EINVAL, "PAPI_TLS_ALL_THREADS needs a PAPI_all_thr_spec_t with num > 0");
	pthread_mutex_lock(&reg.lock);
	for (struct tly_thread *t = reg.head; t && n < all->num; t = t->next, n++) {
		if (all->id)
			all->id[n] = t->tid;
		if (all->data)
			all->data[n] = t->specific[tag];
	}
	pthread_mutex_unlock(&reg.lock);
	all->num = n;
	return PAPI_OK;
}

int tly_thread_get_specific(int tag, void **ptr)
{
	struct tly_thread *t;
	int base = tag & ~PAPI_TLS_ALL_THREADS;

	if (!ptr || base < 0 || base >= PAPI_NUM_TLS)
		return tly_err_set(PAPI_EINVAL, "thread-specific tag %d is not valid", tag);
	if (tag & PAPI_TLS_ALL_THREADS)
		return fill_all(base, (PAPI_all_thr_spec_t *)(void *)ptr);
	t = tly_thread_self();
	if (!t)
		return tly_err_set(PAPI_ENOMEM, "cannot register the calling thread");
	*ptr = t->specific[base];
	return PAPI_OK;
}

int tly_thread_set_specific(int tag, void *ptr)
{
	struct tly_thread *t;

	if (tag < 0 || tag >= PAPI_NUM_TLS)
		return tly_err_set(PAPI_EINVAL, "thread-specific tag %d is not valid", tag);
	t = tly_thread_self();
	if (!t)
		return tly_err_set(PAPI_ENOMEM, "cannot register the calling thread");
	t->specific[tag] = ptr;
	return PAPI_OK;
}

void tly_threads_shutdown(void)
{
	pthread_mutex_lock(&reg.lock);
	while (reg.head) {
		struct tly_thread *t = reg.head;

		reg.head = t->next;
		free(t);
	}
	atomic_fetch_add(&reg.generation, 1);
	pthread_mutex_unlock(&reg.lock);
	atomic_store(&reg.id_fn, NULL);
	self = NULL;
}
