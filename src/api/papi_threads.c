/*
 * papi_threads.c - thread registration, ids, thread-specific data, locks.
 */
#include "papi.h"

#include <pthread.h>

#include "api/api_common.h"
#include "core/threads.h"

/* The user locks PAPI_lock hands out; statically initialised so they work
 * before and across PAPI_library_init/PAPI_shutdown. */
static struct {
	pthread_mutex_t m[PAPI_NUM_LOCK];
} user_locks = { { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER } };

int PAPI_thread_init(unsigned long (*id_fn)(void))
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (!id_fn)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "id_fn must not be NULL"));
	tly_threads_set_id_fn(id_fn);
	tly_lib_mark_threaded();
	return PAPI_OK;
}

unsigned long PAPI_thread_id(void)
{
	if (tly_lib_check() != PAPI_OK || !(tly_lib_state() & PAPI_THREAD_LEVEL_INITED))
		return (unsigned long)PAPI_EMISC;
	return tly_thread_id();
}

int PAPI_register_thread(void)
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (!tly_thread_self())
		return TLY_RET(tly_err_set(PAPI_ENOMEM, "cannot register the calling thread"));
	return PAPI_OK;
}

int PAPI_unregister_thread(void)
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	return TLY_RET(tly_threads_unregister_self());
}

int PAPI_list_threads(PAPI_thread_id_t *tids, int *number)
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	return TLY_RET(tly_threads_list(tids, number));
}

int PAPI_get_thr_specific(int tag, void **ptr)
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	return TLY_RET(tly_thread_get_specific(tag, ptr));
}

int PAPI_set_thr_specific(int tag, void *ptr)
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	return TLY_RET(tly_thread_set_specific(tag, ptr));
}

int PAPI_lock(int lck)
{
	if (lck < 0 || lck >= PAPI_NUM_LOCK)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "lock %d is not valid (0..%d)", lck, PAPI_NUM_LOCK - 1));
	pthread_mutex_lock(&user_locks.m[lck]);
	return PAPI_OK;
}

int PAPI_unlock(int lck)
{
	if (lck < 0 || lck >= PAPI_NUM_LOCK)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "lock %d is not valid (0..%d)", lck, PAPI_NUM_LOCK - 1));
	pthread_mutex_unlock(&user_locks.m[lck]);
	return PAPI_OK;
}
