/*
 * thread_rec.h - the body of a registered thread's record (internal to
 * core: threads.c and eventset.c).
 */
#ifndef TALLY_CORE_THREAD_REC_H
#define TALLY_CORE_THREAD_REC_H

#include "papi.h"

#define TLY_THREAD_MAX_RUNNING 16 /* one running set per component */

struct tly_evset;

struct tly_thread {
	struct tly_thread *next;
	unsigned long tid; /* PAPI_thread_id() at registration */
	long ktid;         /* kernel thread id */
	void *specific[PAPI_NUM_TLS];
	struct tly_evset *running[TLY_THREAD_MAX_RUNNING];
};

int tly_threads_has_id_fn(void);

#endif /* TALLY_CORE_THREAD_REC_H */
