/*
 * samp_source.c - what drives a thread's samples (TALLY_SAMPLING_SOURCE).
 *
 *   perf   the perf software event cpu-clock of the thread (pid 0, any
 *          CPU), sample_period in ns: an hrtimer that runs while the
 *          thread runs and fires at the exact period, as `perf record -e
 *          cpu-clock` samples.  Each overflow signals the thread
 *          (O_ASYNC, F_SETSIG, F_SETOWN_EX to its tid; si_fd names the
 *          counter).  Opened through the one perf-counter service
 *          (tly_perf_open, as the runtime's clock is); no ring buffer is
 *          mapped: the handler reads the ucontext, not perf's records.
 *   timer  a POSIX timer on the thread's CPU clock (timer_create(
 *          CLOCK_THREAD_CPUTIME_ID), SIGEV_THREAD_ID): no perf
 *          permission needed, but the kernel checks CPU-clock timers only
 *          at its tick: above the tick rate one signal stands for several
 *          periods (weighted by 1 + si_overrun).
 *   auto   the timer when the rate is at most the kernel's tick rate
 *          (the coarse clock's resolution is one tick): there it misses
 *          no period, and it costs nothing when the thread is switched
 *          out and in, where perf's cpu-clock costs its hrtimer's stop
 *          and start at every switch (bench_switch_cost: +2.2 us a
 *          switch here; 1.4x LULESH's time when two threads share a
 *          core, at 100 Hz as at 1 kHz).  Above the tick, perf where
 *          perf_event_open allows it (the first thread decides for the
 *          process), else the timer.
 *   event  TALLY_SAMPLING_EVENT: a counter libpfm4 encodes (samp_event.c),
 *          opened as cpu-clock is, sample_period its PERIOD: one signal
 *          every PERIOD counts of the thread.  No timer behind it: a
 *          thread whose counter cannot be opened is not sampled.
 *
 * Real-time signals queue: a thread that keeps the signal blocked for long
 * would fill the user's queue (RLIMIT_SIGPENDING), and the kernel then
 * sends SIGIO instead, whose default action ends the process.  So a perf
 * source is given a credit of SAMP_PERF_CREDIT overflows
 * (PERF_EVENT_IOC_REFRESH: the kernel disables the counter when they are
 * spent) and the handler gives back half of it each time it has taken
 * that many: never more than SAMP_PERF_CREDIT signals of a thread queued.
 * The periods while a thread holds the signal off past its credit are not
 * sampled (the counter is off), as perf record's are not when throttled.
 */
#include "sampling/samp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tally_shared.h"

#define SAMP_PERF_CREDIT 64

/* Open a per-thread sampling counter from a (type, config, period),
 * disabled until the credit is given; at perf_event_paranoid 2 (a user's
 * own threads, user time only) without the kernel's periods. */
static int perf_open_sampler(struct perf_event_attr *a)
{
	int fd;

	a->size = sizeof *a;
	a->disabled = 1;
	a->exclude_hv = 1;
	a->wakeup_events = 1;
	fd = tly_perf_open(a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !a->exclude_kernel) {
		a->exclude_kernel = 1;
		fd = tly_perf_open(a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return fd;
}

static int perf_open_clock(long ns)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = (uint64_t)ns;
	return perf_open_sampler(&a);
}

/* The counter of TALLY_SAMPLING_EVENT, one overflow every ev->period. */
static int perf_open_event(const struct tly_samp_event *ev)
{
	struct perf_event_attr a = ev->attr;

	a.sample_period = (uint64_t)ev->period;
	return perf_open_sampler(&a);
}

/* Can this process open the event at all?  Asked once, at the install,
 * so a counter the machine lacks is one line per job, not one per thread. */
int tly_samp_event_probe(const struct tly_samp_event *ev, char *why, size_t len)
{
	int fd = perf_open_event(ev);

	if (fd < 0) {
		snprintf(why, len, "%s cannot be counted here (perf_event_open: %s)", ev->name,
			 errno == ENOENT || errno == EOPNOTSUPP ? "no such counter on this machine" : strerror(errno));
		return -1;
	}
	close(fd);
	return 0;
}

static int perf_arm(const struct tly_samp_state *st, struct tly_samp_thread *s, long ns, char *why, size_t len)
{
	struct f_owner_ex own = { .type = F_OWNER_TID, .pid = (pid_t)syscall(SYS_gettid) };
	int fd = st->event ? perf_open_event(&st->ev) : perf_open_clock(ns), e, signo = st->signo;

	if (fd < 0) {
		snprintf(why, len, "perf_event_open of %s: %s", st->event ? st->ev.full : "cpu-clock", strerror(errno));
		return -1;
	}
	if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) < 0 || fcntl(fd, F_SETSIG, signo) < 0 ||
	    fcntl(fd, F_SETOWN_EX, &own) < 0 || ioctl(fd, PERF_EVENT_IOC_REFRESH, SAMP_PERF_CREDIT) < 0) {
		e = errno;
		close(fd);
		snprintf(why, len, "routing %s's signals to the thread: %s", st->event ? st->ev.name : "cpu-clock",
			 strerror(e));
		return -1;
	}
	s->fd = fd;
	s->credit = 0;
	s->period = st->event ? st->ev.period : ns;
	return 0;
}

static int timer_arm(struct tly_samp_thread *s, long ns, int signo, char *why, size_t len)
{
	struct sigevent ev;
	struct itimerspec it;

	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = signo;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &s->timer) != 0) {
		snprintf(why, len, "timer_create: %s", strerror(errno));
		return -1;
	}
	it.it_interval.tv_sec = ns / 1000000000L;
	it.it_interval.tv_nsec = ns % 1000000000L;
	it.it_value = it.it_interval;
	if (timer_settime(s->timer, 0, &it, NULL) != 0) {
		snprintf(why, len, "timer_settime: %s", strerror(errno));
		timer_delete(s->timer);
		return -1;
	}
	return 0;
}

/* The kernel's tick rate: the coarse clocks advance one tick at a time,
 * so their resolution is its length (0: not known). */
static long tick_hz(void)
{
	struct timespec r;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &r) != 0 || r.tv_sec != 0 || r.tv_nsec < 1000000L ||
	    r.tv_nsec > 10000000L)
		return 0;
	return (1000000000L + r.tv_nsec / 2) / r.tv_nsec;
}

/* auto's decision for the process, the timer, and why; under the lock,
 * so that two threads starting at once write it once. */
static void take_timer(struct tly_samp_state *st, const char *why)
{
	pthread_mutex_lock(&st->lock);
	if (atomic_load(&st->source) == TLY_SAMP_AUTO) {
		snprintf(st->why_timer, sizeof st->why_timer, "%s", why);
		atomic_store(&st->source, TLY_SAMP_TIMER);
	}
	pthread_mutex_unlock(&st->lock);
}

/* Arm the calling thread's source; 0, or -1 with why.  The first thread
 * decides auto's source for the process (st->source). */
int tly_samp_arm(struct tly_samp_state *st, struct tly_samp_thread *s, char *why, size_t len)
{
	long ns = st->rate > 0 ? 1000000000L / st->rate : 0, hz;
	int src = atomic_load(&st->source);

	s->fd = -1;
	s->period = 0;
	s->periods = -1;
	if (src == TLY_SAMP_AUTO && st->want == TLY_SAMP_AUTO && !st->event && st->rate > 0 &&
	    (hz = tick_hz()) > 0 && st->rate <= hz) {
		char w[sizeof st->why_timer];

		snprintf(w, sizeof w, "%d Hz is at most the kernel's tick, %ld Hz, and a timer costs nothing at a "
			 "context switch", st->rate, hz);
		take_timer(st, w);
		src = atomic_load(&st->source);
	}
	if (src != TLY_SAMP_TIMER && perf_arm(st, s, ns, why, len) == 0) {
		atomic_store(&st->source, TLY_SAMP_PERF);
		s->armed = TLY_SAMP_PERF;
		return 0;
	}
	if (src == TLY_SAMP_PERF || st->want == TLY_SAMP_PERF)
		return -1;   /* perf worked for another thread, or was asked for: no mixing */
	if (src == TLY_SAMP_AUTO)
		take_timer(st, why);
	if (timer_arm(s, ns, st->signo, why, len) != 0)
		return -1;
	s->armed = TLY_SAMP_TIMER;
	return 0;
}

/* In the handler: is this signal the thread's source's?  Its weight
 * (periods it stands for), 0 when it is not. */
int tly_samp_signal_weight(struct tly_samp_thread *s, const siginfo_t *si)
{
	if (s->armed == TLY_SAMP_TIMER && si->si_code == SI_TIMER)
		return 1 + (si->si_overrun > 0 ? si->si_overrun : 0);
	if (s->armed == TLY_SAMP_PERF && si->si_fd == s->fd && (si->si_code == POLL_IN || si->si_code == POLL_HUP)) {
		if (++s->credit >= SAMP_PERF_CREDIT / 2) {   /* give the credit back (async-signal-safe) */
			ioctl(s->fd, PERF_EVENT_IOC_REFRESH, s->credit);
			s->credit = 0;
		}
		return 1;
	}
	return 0;
}

/* Stop the thread's source (caller holds the lock) and, for perf, read
 * its counter: its whole periods less the signals taken are the periods
 * that gave no sample (an interrupt seen more than a period late, as
 * QEMU's programmable counters' are; a throttled event; a signal in the
 * instant between sampling's stop and this disarm).  `armed` goes to 0
 * first, so a handler that runs after it takes nothing and touches no
 * descriptor.  Only the thread itself closes its counter (own): another
 * thread's handler may be between its check of `armed` and its ioctl, and
 * a closed number can be the program's next file; that counter is only
 * disabled, and closed with the process. */
void tly_samp_disarm(struct tly_samp_thread *s, int own)
{
	int was = atomic_exchange(&s->armed, 0);

	if (was == TLY_SAMP_PERF) {
		uint64_t count;

		ioctl(s->fd, PERF_EVENT_IOC_DISABLE, 0);
		/* what the counter counted, in whole periods: each should have
		 * brought a signal (the file's sampling_status.unsignalled) */
		if (s->period > 0 && read(s->fd, &count, sizeof count) == (ssize_t)sizeof count)
			s->periods = (int64_t)(count / (uint64_t)s->period);
		if (own) {
			close(s->fd);
			s->fd = -1;
		}
	} else if (was == TLY_SAMP_TIMER) {
		timer_delete(s->timer);
	}
}
