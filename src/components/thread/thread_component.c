/*
 * thread_component.c - the `thread` PAPI component: a thread's CPU time,
 * page faults and context switches as the kernel accounts them for every
 * thread (thread_read.c), as native events "thread:::CPU-TIME" ...
 *
 * Why beside perf_event's software events of the same meaning: a thread
 * with perf events of its own makes the kernel switch their context at
 * every switch of the thread (measured by bench_switch_cost: +1.0 us a
 * switch with three software events, ~5% of a run where two threads
 * share a core); these need no perf event, no perf_event_open permission
 * (perf_event_paranoid, containers), and their counts are those
 * getrusage(RUSAGE_THREAD) and the thread's CPU clock give.  They differ
 * from perf's in one way: they count user and kernel mode alike (the
 * event set's domain does not apply), so PAGE-FAULTS includes the faults
 * the kernel takes on the thread's memory inside a system call, which
 * perf::PAGE-FAULTS counted in the user domain leaves out.
 *
 * An event set counts the thread that starts it (or the thread of this
 * process it is attached to).  Read on another thread of the process, it
 * reads the owner's values by its id (its CPU clock, /proc/self/task); a
 * forked child's copy counts from the fork (the child's own thread).
 * Neither overflow nor inheritance: those need perf:: events.
 */
#include "components/thread/thread_read.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "components/component.h"
#include "services/err_detail.h"
#include "services/thread_signal.h"

#define PREFIX "thread:::"

struct th_ctl {
	int n;
	int ev[TLY_TH_NEV * 4];     /* the set's natives (an event may repeat) */
	unsigned mask;              /* the events read */
	long attach;                /* a thread of this process; 0: the starter */
	long tid;                   /* whose values: the owner's id, at start */
	pid_t pid;                  /* the process that started it */
	long long base[TLY_TH_NEV]; /* values at start or reset */
};

static int th_init(PAPI_component_info_t *info)
{
	info->num_cntrs = TLY_TH_NEV * 4;
	info->num_mpx_cntrs = TLY_TH_NEV * 4;
	info->default_domain = PAPI_DOM_ALL;
	info->available_domains = PAPI_DOM_ALL;
	info->default_granularity = PAPI_GRN_THR;
	info->available_granularities = PAPI_GRN_THR;
	info->attach = 1;
	snprintf(info->support_version, sizeof info->support_version,
		 "the thread's CPU clock and getrusage(RUSAGE_THREAD)");
	return PAPI_OK;
}

static int th_ntv_enum(uint64_t *tok, int modifier)
{
	if (modifier == PAPI_ENUM_FIRST) {
		*tok = 0;
		return PAPI_OK;
	}
	if (modifier != PAPI_ENUM_EVENTS)
		return PAPI_ENOEVNT;
	if (*tok + 1 >= TLY_TH_NEV)
		return PAPI_ENOEVNT;
	(*tok)++;
	return PAPI_OK;
}

static int th_ntv_name(uint64_t tok, char *buf, size_t len)
{
	if (tok >= TLY_TH_NEV)
		return tly_err_set(PAPI_ENOEVNT, "thread: no event for token %llu", (unsigned long long)tok);
	snprintf(buf, len, PREFIX "%s", tly_th_events[tok].name);
	return PAPI_OK;
}

static int parse(const char *name)
{
	int ev;

	if (!strncmp(name, PREFIX, strlen(PREFIX)))
		name += strlen(PREFIX);
	ev = tly_th_find(name);
	if (ev < 0)
		tly_err_set(PAPI_ENOEVNT, "thread: '%s' is not a thread event (papi_native_avail lists them)", name);
	return ev;
}

static int th_ntv_lookup(const char *name, uint64_t *tok, char *canon, size_t len)
{
	int ev = parse(name);

	if (ev < 0)
		return PAPI_ENOEVNT;
	*tok = (uint64_t)ev;
	return th_ntv_name(*tok, canon, len);
}

static int th_ntv_describe(uint64_t tok, const char *name, PAPI_event_info_t *info)
{
	const struct tly_th_event *e;

	if (tok >= TLY_TH_NEV)
		return PAPI_ENOEVNT;
	e = &tly_th_events[tok];
	snprintf(info->symbol, sizeof info->symbol, "%s", name);
	snprintf(info->short_descr, sizeof info->short_descr, "%s", e->descr);
	snprintf(info->long_descr, sizeof info->long_descr, "%s [unit: %s; no perf event]", e->descr, e->units);
	snprintf(info->units, sizeof info->units, "%s", e->units);
	info->data_type = PAPI_DATATYPE_INT64;
	info->value_type = PAPI_VALUETYPE_RUNNING_SUM;
	info->timescope = PAPI_TIMESCOPE_SINCE_START;
	return PAPI_OK;
}

static int check_opts(struct th_ctl *c, const struct tly_ctl_opts *o)
{
	if (o->inherit)
		return tly_err_set(PAPI_ECMP, "thread: its events count one thread; inheritance needs perf:: events");
	if (o->cpu >= 0)
		return tly_err_set(PAPI_ECMP, "thread: its events count a thread, not a CPU");
	if (o->granularity != PAPI_GRN_THR)
		return tly_err_set(PAPI_ECMP, "thread: its events count a thread (granularity PAPI_GRN_THR)");
	if (o->attach_tid > 0 && o->attach_tid != tly_gettid()) {
		char path[64];

		snprintf(path, sizeof path, "/proc/self/task/%ld", o->attach_tid);
		if (access(path, F_OK))
			return tly_err_set(PAPI_ECMP, "thread: %ld is not a thread of this process; "
						      "attaching to another process needs perf:: events", o->attach_tid);
	}
	c->attach = o->attach_tid > 0 ? o->attach_tid : 0;
	return PAPI_OK;
}

static int th_ctl_init(void *ctl, const struct tly_ctl_opts *opts)
{
	struct th_ctl *c = ctl;

	memset(c, 0, sizeof *c);
	return check_opts(c, opts);
}

static int th_ctl_set_opts(void *ctl, const struct tly_ctl_opts *opts)
{
	return check_opts(ctl, opts);
}

static int th_ctl_update(void *ctl, const char *const *names, int n)
{
	struct th_ctl *c = ctl;

	if (n > (int)(sizeof c->ev / sizeof c->ev[0]))
		return tly_err_set(PAPI_ECOUNT, "thread: at most %d events per event set",
				   (int)(sizeof c->ev / sizeof c->ev[0]));
	c->n = 0;
	c->mask = 0;
	for (int i = 0; i < n; i++) {
		int ev = parse(names[i]);

		if (ev < 0)
			return PAPI_ENOEVNT;
		c->ev[i] = ev;
		c->mask |= 1u << ev;
	}
	c->n = n;
	return PAPI_OK;
}

/* Whose values a read takes: 0 (the calling thread's, the cheap way) when
 * the caller is the owner. */
static long whose(const struct th_ctl *c)
{
	long self = tly_gettid();

	return c->tid == self ? 0 : c->tid;
}

static int now(const struct th_ctl *c, long tid, long long v[TLY_TH_NEV])
{
	if (tly_th_read(tid, c->mask, v) == 0)
		return PAPI_OK;
	if (errno == ESRCH)
		return tly_err_set(PAPI_ESYS, "thread: thread %ld has ended; its counts cannot be read", c->tid);
	return tly_err_set(PAPI_ESYS, "thread: reading thread %ld's accounting: %s", tid ? tid : c->tid,
			   strerror(errno));
}

static int th_ctl_start(void *ctl)
{
	struct th_ctl *c = ctl;

	c->tid = c->attach ? c->attach : tly_gettid();
	c->pid = getpid();
	return now(c, whose(c), c->base);
}

static int th_ctl_stop(void *ctl)
{
	(void)ctl;
	return PAPI_OK;
}

static int th_ctl_read(void *ctl, long long *vals)
{
	struct th_ctl *c = ctl;
	long long v[TLY_TH_NEV];
	int rc;

	long tid = whose(c);

	if (tid && c->pid != getpid()) {
		/* a forked child's copy (its thread id is not the owner's, so the
		 * owner's hot path never pays getpid): its own (only) thread,
		 * counted from the fork, where the child's accounting starts at 0 */
		c->pid = getpid();
		c->tid = tly_gettid();
		memset(c->base, 0, sizeof c->base);
		tid = 0;
	}
	rc = now(c, tid, v);
	if (rc != PAPI_OK)
		return rc;
	for (int i = 0; i < c->n; i++)
		vals[i] = v[c->ev[i]] - c->base[c->ev[i]];
	return PAPI_OK;
}

static int th_ctl_reset(void *ctl)
{
	struct th_ctl *c = ctl;

	return now(c, whose(c), c->base);
}

static void th_ctl_cleanup(void *ctl)
{
	((struct th_ctl *)ctl)->n = 0;
}

const struct tly_component tly_cmp_thread = {
	.name = "thread",
	.short_name = "thread",
	.description = "A thread's CPU time, page faults and context switches as the kernel accounts them "
		       "(no perf event)",
	.version = "1.0",
	.ctl_size = sizeof(struct th_ctl),
	.init = th_init,
	.ntv_enum = th_ntv_enum,
	.ntv_lookup = th_ntv_lookup,
	.ntv_name = th_ntv_name,
	.ntv_describe = th_ntv_describe,
	.ctl_init = th_ctl_init,
	.ctl_update = th_ctl_update,
	.ctl_set_opts = th_ctl_set_opts,
	.ctl_start = th_ctl_start,
	.ctl_stop = th_ctl_stop,
	.ctl_read = th_ctl_read,
	.ctl_reset = th_ctl_reset,
	.ctl_cleanup = th_ctl_cleanup,
};
