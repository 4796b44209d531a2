/*
 * overflow_sw.c - software overflow (PAPI_OVERFLOW_FORCE_SW): a timer on
 * the owning thread's CPU time (timer_create(CLOCK_THREAD_CPUTIME_ID)
 * with SIGEV_THREAD_ID, so the signal lands in the thread that started
 * the set, like ITIMER_PROF per thread) reads the counters at each tick.
 * An event whose count advanced by k thresholds since its last crossing
 * overflowed k times: the handler is called k times (max k over the
 * events), call r with the bits of the events that crossed more than r
 * times, so the number of handler calls matches the hardware path.  The
 * interrupted PC comes from the signal context.  Timing resolution is
 * the tick (PAPI_DEF_ITIMER_NS, and at best the kernel's CPU-timer tick);
 * PAPI_stop delivers the crossings since the last tick (tly_ovf_sw_flush).
 * A profile's crossings with no PC to credit (no tick came before
 * PAPI_stop: a busy machine can starve a thread of CPU-timer ticks for
 * hundreds of ms) are counted missed (tally_overflow_missed), not lost.
 */
#include "core/overflow_sw.h"
#include "core/overflow.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "core/errors.h"
#include "core/part.h"
#include "core/profil.h"
#include "services/thread_signal.h"

#define SW_SIG (SIGRTMIN + 4)

/* The set whose software overflow this thread's timer drives. */
static _Thread_local struct tly_evset *sw_set __attribute__((tls_model("initial-exec")));

static long long crossed(struct tly_evset *es, int i, const long long *raw)
{
	const struct tly_ev *ev = &es->a->ev[i];
	long long d = raw[ev->pos[0]] - es->a->ovf_last[i], n;

	if (d < ev->overflow_threshold)
		return 0;
	n = d / ev->overflow_threshold;
	es->a->ovf_last[i] += n * ev->overflow_threshold;
	return n;
}

/* The handler calls (and profile hits) for the thresholds each event
 * crossed up to the counts in `raw`, at `pc`. */
static void deliver(struct tly_evset *es, const long long *raw, void *pc, void *uc)
{
	long long n[TLY_MAX_EVENTS], most = 0;

	for (int i = 0; i < es->nevents; i++) {
		struct tly_ev *ev = &es->a->ev[i];

		n[i] = ev->overflow_threshold && ev->overflow_sw ? crossed(es, i, raw) : 0;
		if (n[i] && ev->prof) {
			if (pc)
				tly_prof_hit(ev->prof, pc, n[i]);
			else
				es->a->ovf_sw_missed[i] += n[i];
		} else if (n[i] > most)
			most = n[i];
	}
	for (long long r = 0; r < most && es->overflow_handler; r++) {
		long long vec = 0;

		for (int i = 0; i < es->nevents; i++)
			if (n[i] > r && !es->a->ev[i].prof)
				vec |= (long long)(1ULL << es->a->ev[i].pos[0]);
		es->overflow_handler(es->id, pc, vec, uc);
	}
}

static void on_tick(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct tly_evset *es = sw_set;
	long long raw[TLY_MAX_NATIVES];

	(void)sig;
	(void)si;
	if (es && es->ovf_timer_on && tly_parts_read_into(es, raw) == PAPI_OK) {
		es->ovf_pc = tly_uc_pc(uc);
		deliver(es, raw, es->ovf_pc, uc);
	}
	errno = saved;
}

static int any_sw(const struct tly_evset *es)
{
	for (int i = 0; i < es->nevents; i++)
		if (es->a->ev[i].overflow_threshold && es->a->ev[i].overflow_sw)
			return 1;
	return 0;
}

int tly_ovf_sw_start(struct tly_evset *es)
{
	int rc;

	if (!any_sw(es))
		return PAPI_OK;
	memset(es->a->ovf_last, 0, sizeof es->a->ovf_last);
	memset(es->a->ovf_sw_missed, 0, sizeof es->a->ovf_sw_missed);
	es->ovf_pc = NULL;
	sw_set = es;
	es->ovf_timer_on = 1;
	rc = tly_thread_timer_start(&es->ovf_timer, SW_SIG, es->ovf_sw_ns, on_tick);
	if (rc != PAPI_OK) {
		es->ovf_timer_on = 0;
		sw_set = NULL;
	}
	return rc;
}

void tly_ovf_sw_stop(struct tly_evset *es)
{
	if (!es->ovf_timer_on)
		return;
	es->ovf_timer_on = 0;
	atomic_signal_fence(memory_order_seq_cst);
	tly_thread_timer_stop(es->ovf_timer);
	if (sw_set == es)
		sw_set = NULL;
}

/* CPU-time timers fire at the kernel tick, and only at ticks that find
 * the thread running: on a shared CPU the last tick before PAPI_stop can
 * come tens of ms of CPU early (measured: 160 of 200 crossings).  The
 * crossings since are delivered here, outside a signal handler, at the
 * last tick's PC (before any tick: no PC, a profile's crossings counted
 * missed). */
void tly_ovf_sw_flush(struct tly_evset *es)
{
	if (any_sw(es))
		deliver(es, es->a->raw, es->ovf_pc, NULL);
}
