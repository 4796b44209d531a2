/*
 * rt_signal.c - SIGTERM and SIGINT caught without doing anything unsafe in
 * the handler.
 *
 * The handler only records the signal (an atomic) and posts a semaphore
 * (sem_post is async-signal-safe); the thread it interrupted goes on.  A
 * thread of Tally's own, started with every signal blocked, waits on that
 * semaphore: it starts the writer of the partial file on a second thread
 * and waits for it at most TALLY_EXIT_TIMEOUT seconds (0: no limit), then
 * ends the process with the signal's default action (the exit status is
 * the signal's).  A write still under way at the deadline is taken from
 * the writer (`late`, rt_exit.c): the file keeps what it holds under a
 * name that says it is unfinished, and the message says where; a publish
 * that was already moving the file into place ends first, so the two
 * never race for the name.  The writer never runs inside a handler, so a signal that
 * lands while another thread holds the allocator's or stdio's lock cannot
 * deadlock it: that thread keeps running and lets go.
 *
 * Only a signal left at SIG_DFL is taken: the default action Tally
 * displaces is what it performs after the write.  A program's own handler,
 * installed before or after, is never replaced and always wins.  SIGINT is
 * not taken in a process that contains a Python interpreter: CPython
 * installs its KeyboardInterrupt handler only where it finds SIG_DFL at
 * start-up (signal_install_handlers: Handlers[SIGINT] is DefaultHandler),
 * so a handler of Tally's there would lose every KeyboardInterrupt.  An
 * unhandled KeyboardInterrupt ends Python with the default SIGINT action
 * (exit_sigint), as without Tally.
 *
 * The dispositions themselves are held by rt_sigview.c: the program sees
 * its own (SIG_DFL where Tally's handler stands), and a fork() child gets
 * them back in the kernel, so SIGTERM ends it as without Tally.
 */
#include "runtime/rt.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

atomic_int tly_rt_dying;              /* the first signal taken, 0: none */

/* Set in Tally's own threads (the watcher and the writer). */
static _Thread_local int tally_thread;

static struct {
	sem_t wake, done;
	atomic_int installed;
	void (*write)(const char *why);
	int (*late)(int sig, int secs);   /* the deadline passed: the unfinished file said; 1: in place just then */
	int timeout;                  /* seconds, 0: none */
} sigs;

int tly_rt_signal_caught(void)
{
	return atomic_load(&tly_rt_dying);
}

void tly_rt_die(int sig)
{
	sigset_t one;

	tly_rt_sig_default(sig);
	sigemptyset(&one);
	sigaddset(&one, sig);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	raise(sig);
	_exit(128 + sig);   /* not reached: the default action of sig ends the process */
}

static void on_signal(int sig)
{
	int saved = errno, none = 0;

	atomic_compare_exchange_strong(&tly_rt_dying, &none, sig);
	sem_post(&sigs.wake);
	errno = saved;
}

void tly_rt_safe_point(void)
{
	if (tally_thread)
		return;
	for (;;)
		pause();   /* the writer, or the watcher's deadline, ends the process */
}

static void *writer_main(void *arg)
{
	int sig = atomic_load(&tly_rt_dying);

	(void)arg;
	tally_thread = 1;
	sigs.write(sig == SIGTERM ? "SIGTERM" : sig == SIGINT ? "SIGINT" : "signal");
	sem_post(&sigs.done);
	return NULL;
}

static int wait_done(int secs)
{
	struct timespec until;
	int rc;

	if (secs <= 0) {
		while ((rc = sem_wait(&sigs.done)) != 0 && errno == EINTR)
			;
		return rc;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += secs;
	while ((rc = sem_timedwait(&sigs.done, &until)) != 0 && errno == EINTR)
		;
	return rc;
}

static void *watch_main(void *arg)
{
	pthread_attr_t at;
	pthread_t w;
	int sig;

	(void)arg;
	tally_thread = 1;
	while (sem_wait(&sigs.wake) != 0)
		;
	sig = atomic_load(&tly_rt_dying);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&w, &at, writer_main, NULL) != 0)
		writer_main(NULL);
	else if (wait_done(sigs.timeout) != 0 && sigs.late(sig, sigs.timeout) == 1)
		(void)wait_done(2);   /* put in place as the time ran out: its writer's line said */
	pthread_attr_destroy(&at);
	tly_rt_die(sig);
	return NULL;
}

/* SIGINT's owner: a process with a Python interpreter in it keeps SIGINT
 * at SIG_DFL for Python to take (its symbols are in the executable, or in
 * libpython loaded with it). */
static int python_inside(void)
{
	return dlsym(RTLD_DEFAULT, "PyOS_setsig") != NULL;
}

void tly_rt_signals_install(void (*write)(const char *why), int (*late)(int sig, int secs), int timeout)
{
	sigset_t all, old;
	pthread_t t;
	int rc;

	if (atomic_exchange(&sigs.installed, 1))
		return;
	sigs.write = write;
	sigs.late = late;
	sigs.timeout = timeout;
	if (sem_init(&sigs.wake, 0, 0) != 0 || sem_init(&sigs.done, 0, 0) != 0)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&t, NULL, watch_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		tly_rt_log(2, "no thread for signals (%s): SIGTERM and SIGINT are not caught", strerror(rc));
		return;
	}
	pthread_detach(t);
	pthread_setname_np(t, "tally-signals");
	tly_rt_sig_take(SIGTERM, on_signal);   /* only where at SIG_DFL (rt_sigview.c) */
	if (!python_inside())
		tly_rt_sig_take(SIGINT, on_signal);
}
