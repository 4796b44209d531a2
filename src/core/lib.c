/*
 * lib.c - the library's state (PAPI_is_initialized's value) and its lock.
 * The entry points that change it are src/api/papi_library.c; the
 * component registry is core/cmp_registry.c, the debug level
 * core/errors.c.
 */
#include "core/lib.h"

#include <pthread.h>
#include <stdatomic.h>

#include "core/errors.h"

/* The library's one state struct.  `state` is read on hot paths without
 * the lock, hence an atomic; the lock guards rarely changed state of the
 * whole library (init, shutdown, the component registry, tables). */
static struct {
	pthread_mutex_t lock;
	atomic_int state;
} lib = {
	.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
};

void tly_lib_lock(void)
{
	pthread_mutex_lock(&lib.lock);
}

void tly_lib_unlock(void)
{
	pthread_mutex_unlock(&lib.lock);
}

int tly_lib_state(void)
{
	return atomic_load_explicit(&lib.state, memory_order_acquire);
}

int tly_lib_check(void)
{
	if (tly_lib_state() == PAPI_NOT_INITED)
		return tly_err_set(PAPI_ENOINIT, "PAPI_library_init has not been called (or PAPI_shutdown was)");
	return PAPI_OK;
}

void tly_lib_set_state(int state)
{
	atomic_store(&lib.state, state);
}

/* Record PAPI_thread_init in the init level. */
void tly_lib_mark_threaded(void)
{
	atomic_fetch_or(&lib.state, PAPI_THREAD_LEVEL_INITED);
}

void tly_lib_mark_high_level(void)
{
	atomic_fetch_or(&lib.state, PAPI_HIGH_LEVEL_INITED);
}
