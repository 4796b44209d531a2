/*
 * thread_timer.h - a periodic timer on the calling thread's CPU time whose
 * signal is delivered to that thread (timer_create with
 * CLOCK_THREAD_CPUTIME_ID and SIGEV_THREAD_ID).  Used by software
 * multiplexing and software overflow.
 */
#ifndef TALLY_CORE_THREAD_TIMER_H
#define TALLY_CORE_THREAD_TIMER_H

#include <signal.h>
#include <time.h>

/* Install `handler` (SA_SIGINFO | SA_RESTART) for sig and start a timer
 * firing every ns of the caller's CPU time.  PAPI_OK or PAPI_ESYS
 * (detail set). */
int tly_thread_timer_start(timer_t *t, int sig, long ns, void (*handler)(int, siginfo_t *, void *));
void tly_thread_timer_stop(timer_t t);

#endif /* TALLY_CORE_THREAD_TIMER_H */
