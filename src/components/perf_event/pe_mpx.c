/*
 * pe_mpx.c - multiplexed sets: scaled reads, coverage, and the rotation
 * the component drives itself.
 *
 * Every counter of a multiplexed set is its own perf group, so the kernel
 * may schedule each one on its own.  Two cases:
 *
 *  - kernel multiplexing: all counters are enabled together; when the PMU
 *    has fewer counters than events, perf rotates them at each tick and
 *    reports time_enabled / time_running per counter.  The estimate is
 *    count * enabled / running.
 *  - component rotation (PAPI_MULTIPLEX_FORCE_SW, or a set larger than
 *    the TALLY_PERF_MAX_COUNTERS budget): counters are split into slots
 *    of `cap` and a per-thread CPU-time timer (timer_create with
 *    SIGEV_THREAD_ID, so it fires in the owning thread) disables one slot
 *    and enables the next.  perf never over-commits software events, so
 *    under a budget this is the only way they get rotated; it is what
 *    "kernel multiplexing" means there too (docs/multiplex-overflow.md).
 *    The set ran for T = the sum over slots of each slot's enabled time;
 *    a counter's estimate is count * T / its own running time.
 *
 * Times are taken relative to their values at start/reset because
 * PERF_EVENT_IOC_RESET clears counts, not times.
 */
#include "pe_internal.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "services/err_detail.h"
#include "services/thread_signal.h"

#define ROT_SIG (SIGRTMIN + 3)

struct cnt {
	uint64_t v, en, run;
};

long long tly_pe_mpx_scale(uint64_t count, uint64_t total, uint64_t running)
{
	unsigned __int128 x;

	if (running == 0)
		return 0;
	if (running >= total)
		return count > (uint64_t)LLONG_MAX ? LLONG_MAX : (long long)count;
	x = (unsigned __int128)count * total / running;
	return x > (unsigned __int128)LLONG_MAX ? LLONG_MAX : (long long)x;
}

void tly_pe_mpx_plan(struct tly_pe_ctl *c)
{
	struct tly_pe_mpx *m = &c->mpx;
	const struct tly_pe_probe *p = tly_pe_probe_get();
	int n = c->g.n, b = tly_pe_budget();

	m->on = c->opts.multiplex != 0;
	m->cap = n > 0 ? n : 1;
	if (b > 0)
		m->cap = b;
	else if (c->opts.mpx_sw && p->hw_ok && p->num_cntrs > 0)
		m->cap = p->num_cntrs;
	m->nslot = n > 0 ? (n + m->cap - 1) / m->cap : 0;
	m->rotate = m->on && m->nslot > 1;
}

static int read_one(const struct tly_pe_ctl *c, int i, struct cnt *out)
{
	uint64_t b[4];
	size_t want = (c->g.nogroup ? 3 : 4) * sizeof(uint64_t);
	ssize_t got = read(c->g.fds[i], b, want);

	if (got != (ssize_t)want) {
		/* defined even on failure: callers' loops stop at the error,
		 * but the compiler cannot see that tly_pe_fail never returns
		 * PAPI_OK (GCC -O3 -Wmaybe-uninitialized in rebase) */
		out->v = out->en = out->run = 0;
		return tly_pe_fail(got < 0 ? errno : EIO, TLY_PE_OP_READ, c->names[i]);
	}
	out->v = c->g.nogroup ? b[0] : b[3];
	out->en = b[1] >= c->mpx.base_en[i] ? b[1] - c->mpx.base_en[i] : 0;
	out->run = b[2] >= c->mpx.base_run[i] ? b[2] - c->mpx.base_run[i] : 0;
	return PAPI_OK;
}

static void slot_ioctl(struct tly_pe_ctl *c, int s, unsigned long req)
{
	int end = (s + 1) * c->mpx.cap;

	for (int i = s * c->mpx.cap; i < end && i < c->g.n; i++)
		ioctl(c->g.fds[i], req, 0);
}

/* Runs in the signal handler or, deferred, at the end of a read. */
static void rotate(struct tly_pe_ctl *c)
{
	slot_ioctl(c, c->mpx.cur, PERF_EVENT_IOC_DISABLE);
	c->mpx.cur = (c->mpx.cur + 1) % c->mpx.nslot;
	slot_ioctl(c, c->mpx.cur, PERF_EVENT_IOC_ENABLE);
}

static void on_rotate(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	struct tly_pe_ctl *c = tly_pe_thread_get();

	(void)sig;
	(void)si;
	(void)uc;
	if (c && c->mpx.rotate && c->mpx.timer_on) {
		if (c->mpx.busy)
			c->mpx.pending = 1;
		else
			rotate(c);
	}
	errno = saved;
}

static int timer_arm(struct tly_pe_ctl *c)
{
	int rc;

	c->mpx.timer_on = 1;
	rc = tly_thread_timer_start(&c->mpx.timer, ROT_SIG, c->opts.mpx_ns, on_rotate);
	if (rc != PAPI_OK)
		c->mpx.timer_on = 0;
	return rc;
}

/* Zero counts and remember the times they restart from. */
static int rebase(struct tly_pe_ctl *c)
{
	struct cnt x;
	int rc;

	for (int i = 0; i < c->g.n; i++) {
		if (ioctl(c->g.fds[i], PERF_EVENT_IOC_RESET, 0) < 0)
			return tly_pe_fail(errno, TLY_PE_OP_IOCTL, c->names[i]);
		c->mpx.base_en[i] = c->mpx.base_run[i] = 0;
		rc = read_one(c, i, &x);
		if (rc != PAPI_OK)
			return rc;
		c->mpx.base_en[i] = x.en;
		c->mpx.base_run[i] = x.run;
	}
	return PAPI_OK;
}

int tly_pe_mpx_start(struct tly_pe_ctl *c)
{
	struct tly_pe_mpx *m = &c->mpx;
	int rc = rebase(c);

	if (rc != PAPI_OK)
		return rc;
	m->cur = 0;
	m->busy = m->pending = 0;
	if (!m->rotate) {
		for (int i = 0; i < c->g.n; i++)
			if (ioctl(c->g.fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
				return tly_pe_fail(errno, TLY_PE_OP_IOCTL, c->names[i]);
		return PAPI_OK;
	}
	tly_pe_thread_set(c);
	slot_ioctl(c, 0, PERF_EVENT_IOC_ENABLE);
	rc = timer_arm(c);
	if (rc != PAPI_OK)
		slot_ioctl(c, 0, PERF_EVENT_IOC_DISABLE);
	return rc;
}

int tly_pe_mpx_stop(struct tly_pe_ctl *c)
{
	if (c->mpx.timer_on) {
		c->mpx.timer_on = 0;
		atomic_signal_fence(memory_order_seq_cst);
		tly_thread_timer_stop(c->mpx.timer);
	}
	for (int i = 0; i < c->g.n; i++)
		ioctl(c->g.fds[i], PERF_EVENT_IOC_DISABLE, 0);
	return PAPI_OK;
}

int tly_pe_mpx_reset(struct tly_pe_ctl *c)
{
	int rc;

	c->mpx.busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	rc = rebase(c);
	atomic_signal_fence(memory_order_seq_cst);
	c->mpx.busy = 0;
	return rc;
}

/* Counts and times of every counter, and the time the set ran. */
static int read_all(struct tly_pe_ctl *c, struct cnt *x, uint64_t *total)
{
	int rc = PAPI_OK;

	c->mpx.busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	for (int i = 0; i < c->g.n && rc == PAPI_OK; i++)
		rc = read_one(c, i, &x[i]);
	atomic_signal_fence(memory_order_seq_cst);
	c->mpx.busy = 0;
	atomic_signal_fence(memory_order_seq_cst);
	if (c->mpx.pending && c->mpx.timer_on) {
		c->mpx.pending = 0;
		rotate(c);
	}
	*total = 0;
	for (int s = 0; c->mpx.rotate && s < c->mpx.nslot; s++) {
		uint64_t mx = 0;

		for (int i = s * c->mpx.cap; i < (s + 1) * c->mpx.cap && i < c->g.n; i++)
			mx = x[i].en > mx ? x[i].en : mx;
		*total += mx;
	}
	return rc;
}

int tly_pe_mpx_read(struct tly_pe_ctl *c, long long *vals)
{
	struct cnt x[TLY_PE_MAX_EVENTS];
	uint64_t total;
	int rc = read_all(c, x, &total);

	if (rc != PAPI_OK)
		return rc;
	for (int i = 0; i < c->g.n; i++)
		vals[i] = tly_pe_mpx_scale(x[i].v, c->mpx.rotate ? total : x[i].en, x[i].run);
	return PAPI_OK;
}

int tly_pe_ctl_mpx_coverage(void *ctl, double *fractions)
{
	struct tly_pe_ctl *c = ctl;
	struct cnt x[TLY_PE_MAX_EVENTS];
	uint64_t total;
	int rc;

	if (!c || !fractions)
		return PAPI_EINVAL;
	if (!c->mpx.on) {
		for (int i = 0; i < c->g.n; i++)
			fractions[i] = 1.0;
		return PAPI_OK;
	}
	rc = read_all(c, x, &total);
	for (int i = 0; i < c->g.n && rc == PAPI_OK; i++) {
		uint64_t t = c->mpx.rotate ? total : x[i].en;

		fractions[i] = t ? (double)(x[i].run < t ? x[i].run : t) / (double)t : 0.0;
	}
	return rc;
}
