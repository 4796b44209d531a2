/*
 * thread_signal.c - signals aimed at one thread (see thread_signal.h).
 */
#include "services/thread_signal.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "papi.h"
#include "services/err_detail.h"

/* glibc before 2.35 does not name the thread-id member. */
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

/* The kernel thread id, cached per thread (a system call costs more than
 * creating an event set); a forked child's one thread forgets the
 * parent's value. */
static _Thread_local long tid_cache;
static pthread_once_t tid_once = PTHREAD_ONCE_INIT;

static void tid_forget(void)
{
	tid_cache = 0;
}

static void tid_at_fork(void)
{
	pthread_atfork(NULL, NULL, tid_forget);
}

long tly_gettid(void)
{
	if (!tid_cache) {
		pthread_once(&tid_once, tid_at_fork);
		tid_cache = (long)syscall(SYS_gettid);
	}
	return tid_cache;
}

int tly_thread_timer_start(timer_t *t, int sig, long ns, void (*handler)(int, siginfo_t *, void *))
{
	struct sigaction sa;
	struct sigevent sev;
	struct itimerspec its;

	if (ns <= 0)
		ns = 10000000L;
	its.it_interval.tv_sec = its.it_value.tv_sec = ns / 1000000000L;
	its.it_interval.tv_nsec = its.it_value.tv_nsec = ns % 1000000000L;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) < 0)
		return tly_err_set(PAPI_ESYS, "cannot install the handler of signal %d (%s)", sig, strerror(errno));
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = sig;
	sev.sigev_notify_thread_id = (pid_t)tly_gettid();
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, t) < 0)
		return tly_err_set(PAPI_ESYS, "timer_create on the thread's CPU clock failed (%s)", strerror(errno));
	if (timer_settime(*t, 0, &its, NULL) < 0) {
		int err = errno;

		timer_delete(*t);
		return tly_err_set(PAPI_ESYS, "timer_settime failed (%s)", strerror(err));
	}
	return PAPI_OK;
}

void tly_thread_timer_stop(timer_t t)
{
	timer_delete(t);
}
