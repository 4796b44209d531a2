/*
 * thread_signal.h - signals aimed at one thread: its kernel thread id
 * (what F_SETOWN_EX and SIGEV_THREAD_ID name), and a periodic timer on
 * the calling thread's CPU time whose signal is delivered to that thread
 * (timer_create with CLOCK_THREAD_CPUTIME_ID and SIGEV_THREAD_ID).  Used
 * by software multiplexing, software overflow and the perf_event
 * component's overflow signals.
 */
#ifndef TALLY_SERVICES_THREAD_SIGNAL_H
#define TALLY_SERVICES_THREAD_SIGNAL_H

#include <signal.h>
#include <time.h>

/* Kernel thread id (gettid) of the calling thread, cached per thread; a
 * forked child's thread forgets its parent's value. */
long tly_gettid(void);

/* Install `handler` (SA_SIGINFO | SA_RESTART) for sig and start a timer
 * firing every ns of the caller's CPU time.  PAPI_OK or PAPI_ESYS
 * (detail set). */
int tly_thread_timer_start(timer_t *t, int sig, long ns, void (*handler)(int, siginfo_t *, void *));
void tly_thread_timer_stop(timer_t t);

#endif /* TALLY_SERVICES_THREAD_SIGNAL_H */
