/*
 * threads.h - registered threads, thread ids and thread-specific data.
 */
#ifndef TALLY_CORE_THREADS_H
#define TALLY_CORE_THREADS_H

#include "papi.h"
#include "services/thread_signal.h"   /* tly_gettid */

struct tly_thread;

/* The calling thread's record, registering it on first use
 * (NULL only when out of memory). */
struct tly_thread *tly_thread_self(void);
/* The calling thread's record if registered, else NULL. */
struct tly_thread *tly_thread_current(void);
/* Id of the calling thread as PAPI_thread_id reports it. */
unsigned long tly_thread_id(void);
int tly_threads_set_id_fn(unsigned long (*fn)(void));
int tly_threads_unregister_self(void);
int tly_threads_list(PAPI_thread_id_t *tids, int *number);
int tly_thread_get_specific(int tag, void **ptr);
int tly_thread_set_specific(int tag, void *ptr);
void tly_threads_shutdown(void);

#endif /* TALLY_CORE_THREADS_H */
