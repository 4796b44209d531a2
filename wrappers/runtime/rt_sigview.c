/*
 * rt_sigview.c - the program's view of its signals unchanged by Tally
 * (docs/runtime.md, "Signals").
 *
 * rt_signal.c takes SIGTERM (and SIGINT) only where they are at SIG_DFL,
 * and its handler ends the process by the default action after the
 * partial file: it stands for SIG_DFL.  So sigaction and signal, asked
 * about a signal Tally holds, answer with what the program set (SIG_DFL,
 * its flags and mask), not Tally's handler (Python's signal.getsignal
 * would say None and the common save and restore of a handler fail); a
 * program setting SIG_DFL there keeps Tally's handler, any other handler
 * or SIG_IGN is installed as asked and wins, and SIG_DFL set again later
 * is taken again.  Every other signal, and every call while Tally holds
 * none, goes straight to the C library.
 *
 * A fork() child has no signal thread of Tally's and never writes
 * (rt_state.c): it gets the program's dispositions back in the kernel
 * before fork returns, so SIGTERM and SIGINT end it exactly as without
 * Tally; the two are blocked across the fork so none lands in the child
 * before that.
 */
#include "runtime/rt.h"

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef void (*handler_fn)(int);

static struct {
	pthread_mutex_t lock;
	pthread_once_t once;
	sigaction_fn real;
	handler_fn (*real_signal)(int, handler_fn);
	handler_fn ours;              /* Tally's handler, for taking again */
	int taken[2];                 /* SIGTERM, SIGINT: Tally's handler is in the kernel */
	int managed[2];               /* Tally may hold it */
	struct sigaction view[2];     /* what the program set, while taken */
} sv = { .lock = PTHREAD_MUTEX_INITIALIZER, .once = PTHREAD_ONCE_INIT };

static _Thread_local sigset_t fork_mask;

/* glibc's own name for sigaction, where dlsym finds no next one */
extern int __sigaction(int, const struct sigaction *, struct sigaction *) __attribute__((weak));

static int slot(int sig)
{
	return sig == SIGTERM ? 0 : sig == SIGINT ? 1 : -1;
}

static void resolve(void)
{
	sv.real = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
	sv.real_signal = (handler_fn(*)(int, handler_fn))dlsym(RTLD_NEXT, "signal");
	if (!sv.real)
		sv.real = __sigaction;
}

int tly_rt_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	pthread_once(&sv.once, resolve);
	return sv.real(sig, act, old);
}

static void fork_prepare(void)
{
	sigset_t two;

	sigemptyset(&two);
	sigaddset(&two, SIGTERM);
	sigaddset(&two, SIGINT);
	pthread_sigmask(SIG_BLOCK, &two, &fork_mask);
}

static void fork_parent(void)
{
	pthread_sigmask(SIG_SETMASK, &fork_mask, NULL);
}

/* The child: the program's own dispositions, then the signals let in. */
static void fork_child(void)
{
	for (int i = 0; i < 2; i++)
		if (sv.taken[i]) {
			sv.real(i ? SIGINT : SIGTERM, &sv.view[i], NULL);
			sv.taken[i] = 0;
		}
	sv.managed[0] = sv.managed[1] = 0;
	pthread_mutex_init(&sv.lock, NULL);
	pthread_sigmask(SIG_SETMASK, &fork_mask, NULL);
}

int tly_rt_sig_take(int sig, void (*handler)(int))
{
	struct sigaction old, sa;
	int i = slot(sig), rc = 0;

	pthread_once(&sv.once, resolve);
	if (i < 0)
		return 0;
	pthread_mutex_lock(&sv.lock);
	if (!sv.managed[0] && !sv.managed[1])
		pthread_atfork(fork_prepare, fork_parent, fork_child);
	sv.managed[i] = 1;
	sv.ours = handler;
	if (sv.real(sig, NULL, &old) == 0 && !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = handler;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		if (sv.real(sig, &sa, NULL) == 0) {
			sv.view[i] = old;
			sv.taken[i] = rc = 1;
		}
	}
	pthread_mutex_unlock(&sv.lock);
	return rc;
}

void tly_rt_sig_default(int sig)
{
	struct sigaction sa;
	int i = slot(sig);

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	if (i >= 0)
		sv.taken[i] = 0;   /* async-signal-safe: no lock (the process ends) */
	tly_rt_sigaction(sig, &sa, NULL);
}

static int is_default(const struct sigaction *a)
{
	return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_DFL;
}

/* A signal Tally may hold: the program's view kept, SIG_DFL kept as
 * Tally's handler, anything else installed. */
static int managed_action(int i, int sig, const struct sigaction *act, struct sigaction *old)
{
	struct sigaction prev, sa;
	int rc = 0;

	pthread_mutex_lock(&sv.lock);
	if (sv.taken[i])
		prev = sv.view[i];
	else
		rc = sv.real(sig, NULL, &prev);
	if (!rc && act && is_default(act)) {
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = sv.ours;
		sa.sa_flags = SA_RESTART;
		sigemptyset(&sa.sa_mask);
		rc = sv.taken[i] ? 0 : sv.real(sig, &sa, NULL);
		if (!rc) {
			sv.view[i] = *act;
			sv.taken[i] = 1;
		}
	} else if (!rc && act) {
		rc = sv.real(sig, act, NULL);
		if (!rc)
			sv.taken[i] = 0;
	}
	pthread_mutex_unlock(&sv.lock);
	if (!rc && old)
		*old = prev;
	return rc;
}

__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int i = slot(sig);

	pthread_once(&sv.once, resolve);
	if (i < 0 || !sv.managed[i])
		return sv.real(sig, act, old);
	return managed_action(i, sig, act, old);
}

/* glibc's signal(): BSD semantics (SA_RESTART, the signal blocked in its
 * handler), through the sigaction above for a signal Tally may hold. */
__attribute__((visibility("default"))) handler_fn signal(int sig, handler_fn h)
{
	struct sigaction sa, old;
	int i = slot(sig);

	pthread_once(&sv.once, resolve);
	if ((i < 0 || !sv.managed[i]) && sv.real_signal)
		return sv.real_signal(sig, h);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = h;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);
	sa.sa_flags = SA_RESTART;
	if (sigaction(sig, &sa, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}
