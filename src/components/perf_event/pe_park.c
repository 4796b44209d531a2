/*
 * pe_park.c - idle event sets beyond a cap give their descriptors back.
 *
 * Enabling or disabling one perf event makes the kernel reschedule the
 * task's whole perf context, visiting every event open on it, running or
 * not: with 16,000 event sets of one counter each, PAPI_start+PAPI_stop
 * took 62.6 s (4.6 ms a pair at 8,000 sets against 0.28 ms at 1,000).  So
 * at most PARK_CAP sets that are not running keep their descriptors; a
 * set stopped (or created) beyond that closes them, keeping its names and
 * options, and its next start opens them again: a fixed cost per start
 * instead of one that grows with the number of sets.  The core keeps a
 * stopped set's values itself (stopvals), so nothing is read from a
 * parked set.  Sets that sample, multiplex, inherit, or count another
 * thread or a CPU are never parked (their descriptors carry more state).
 */
#include "pe_internal.h"

#include <stdatomic.h>
#include "services/thread_signal.h"

#define PARK_CAP 128   /* idle sets that keep their descriptors: reopening costs about
                        * what the kernel's walk of 128 idle events does */

static struct {
	atomic_int idle;   /* sets open and not running, process-wide */
} park;

static int parkable(const struct tly_pe_ctl *c)
{
	const struct tly_ctl_opts *o = &c->opts;

	return c->g.n > 0 && !c->ovf.any && !c->mpx.on && !o->multiplex && !o->inherit && o->attach_tid <= 0 &&
	       o->cpu < 0 && o->granularity == PAPI_GRN_THR && c->tid == tly_gettid();
}

static void set_idle(struct tly_pe_ctl *c, int on)
{
	if (c->idle != on)
		atomic_fetch_add(&park.idle, on ? 1 : -1);
	c->idle = on;
}

/* Close the descriptors, keep what reopens them. */
static void park_now(struct tly_pe_ctl *c)
{
	int n = c->g.n;

	set_idle(c, 0);
	tly_pe_ctl_close(c);
	c->parked_n = n;
}

void tly_pe_park_opened(struct tly_pe_ctl *c)
{
	c->parked_n = 0;
	c->tid = tly_gettid();
	if (parkable(c) && atomic_load(&park.idle) >= PARK_CAP)
		park_now(c);
	else
		set_idle(c, c->g.n > 0);
}

int tly_pe_park_wake(struct tly_pe_ctl *c)
{
	const char *names[TLY_PE_MAX_EVENTS];
	struct tly_ctl_opts o = c->opts;
	int rc;

	if (c->parked_n > 0) {
		for (int i = 0; i < c->parked_n; i++)
			names[i] = c->names[i];
		if (c->tid != tly_gettid())
			o.attach_tid = c->tid;   /* still the thread it counted */
		rc = tly_pe_ctl_open_as(c, &o, names, c->parked_n);
		if (rc != PAPI_OK)
			return rc;
		c->parked_n = 0;
	}
	set_idle(c, 0);
	return PAPI_OK;
}

void tly_pe_park_stopped(struct tly_pe_ctl *c)
{
	if (parkable(c) && atomic_load(&park.idle) >= PARK_CAP)
		park_now(c);
	else
		set_idle(c, c->g.n > 0);
}

void tly_pe_park_forget(struct tly_pe_ctl *c)
{
	set_idle(c, 0);
	c->parked_n = 0;
}
