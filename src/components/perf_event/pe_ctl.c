/*
 * pe_ctl.c - control state of one event set: perf groups.
 *
 * Each sub-group (see pe_internal.h for why there can be several) has a
 * leader opened disabled and members opened enabled, so enabling or
 * disabling the leader alone starts or stops them all, and one read() of
 * the leader returns every count.  Leaders are enabled and disabled
 * without PERF_IOC_FLAG_GROUP: that flag flips each member's own state,
 * which Linux 6.x mishandles for some siblings.  Multiplexed sets give
 * each counter its own group so the kernel can rotate them (pe_mpx.c);
 * counters that overflow get sampling fields (pe_overflow.c).  The groups
 * are opened and closed in pe_group.c.
 *
 * PAPI_reset of a running set whose counters are read from user space
 * (pe_rdpmc.c) records the counts as a base instead of issuing
 * PERF_EVENT_IOC_RESET: no system call (2817 -> 220 instructions in the
 * arm64 guest), and the kernel never leaves the user page relative to a
 * raw counter value, the state that made 32-bit arm counters read
 * n - 2^32 after a reset (pe_count.h).  PAPI_start clears the base.
 */
#include "pe_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "services/err_detail.h"

#define DOM_MASK (PAPI_DOM_USER | PAPI_DOM_KERNEL | PAPI_DOM_SUPERVISOR)

static int check_opts(const struct tly_ctl_opts *o)
{
	if (!(o->domain & DOM_MASK))
		return tly_err_set(PAPI_EINVAL_DOM, "perf_event: domain %#x has none of USER, KERNEL, SUPERVISOR",
		                   o->domain);
	if (o->granularity != PAPI_GRN_THR && o->granularity != PAPI_GRN_SYS)
		return tly_err_set(PAPI_EINVAL, "perf_event: granularity %#x is not supported "
		                   "(PAPI_GRN_THR or PAPI_GRN_SYS)", o->granularity);
	if (o->granularity == PAPI_GRN_SYS && o->cpu < 0)
		return tly_err_set(PAPI_EINVAL, "perf_event: PAPI_GRN_SYS counts one CPU; attach the event "
		                   "set to a CPU (PAPI_CPU_ATTACH) first");
	return PAPI_OK;
}

int tly_pe_ctl_reopen(struct tly_pe_ctl *c, const struct tly_ctl_opts *o, const char *const *names, int n)
{
	struct tly_pe_group g;
	int rc = tly_pe_group_open(c, o, names, n, &g);

	if (rc != PAPI_OK)
		return rc;
	tly_pe_ovf_unmap(c);
	tly_pe_group_close(&c->g);
	c->g = g;
	if (&c->opts != o)
		c->opts = *o;
	rc = tly_pe_ovf_map(c);
	tly_pe_mpx_plan(c);
	if (rc == PAPI_OK)
		tly_pe_park_opened(c);
	return rc;
}

int tly_pe_ctl_init(void *ctl, const struct tly_ctl_opts *opts)
{
	struct tly_pe_ctl *c = ctl;
	struct tly_ctl_opts dfl = { .domain = PAPI_DOM_USER, .granularity = PAPI_GRN_THR, .cpu = -1 };

	if (!c)
		return PAPI_EINVAL;
	memset(c, 0, sizeof *c);
	tly_pe_group_clear(&c->g);
	c->opts = opts ? *opts : dfl;
	tly_pe_mpx_plan(c);
	return check_opts(&c->opts);
}

int tly_pe_ctl_update(void *ctl, const char *const *names, int n)
{
	struct tly_pe_ctl *c = ctl;
	int rc;

	if (!c || n < 0 || (n > 0 && !names))
		return PAPI_EINVAL;
	if (n > TLY_PE_MAX_EVENTS)
		return tly_err_set(PAPI_ECOUNT, "perf_event: %d events in one set, the limit is %d", n,
		                   TLY_PE_MAX_EVENTS);
	for (int i = 0; i < n; i++)
		if (!names[i] || strlen(names[i]) >= TLY_PE_NAME_LEN)
			return tly_err_set(PAPI_EINVAL, "perf_event: event %d has no name or one too long", i);
	/* new names: overflow settings belong to the old ones (the core
	 * re-applies its thresholds after an update) */
	struct tly_pe_ovf keep = c->ovf;

	memset(c->ovf.threshold, 0, sizeof c->ovf.threshold);
	c->ovf.any = 0;
	rc = tly_pe_ctl_reopen(c, &c->opts, names, n);
	if (rc != PAPI_OK) {
		c->ovf.any = keep.any;
		memcpy(c->ovf.threshold, keep.threshold, sizeof keep.threshold);
		return rc;
	}
	for (int i = 0; i < n; i++)
		snprintf(c->names[i], sizeof c->names[i], "%s", names[i]);
	return PAPI_OK;
}

int tly_pe_ctl_set_opts(void *ctl, const struct tly_ctl_opts *opts)
{
	struct tly_pe_ctl *c = ctl;
	const char *names[TLY_PE_MAX_EVENTS];
	int rc;

	if (!c || !opts)
		return PAPI_EINVAL;
	rc = check_opts(opts);
	if (rc == PAPI_OK)
		rc = tly_pe_park_wake(c);   /* the new options are tried on open descriptors */
	if (rc != PAPI_OK || c->g.n == 0) {
		if (rc == PAPI_OK)
			c->opts = *opts;
		return rc;
	}
	for (int i = 0; i < c->g.n; i++)
		names[i] = c->names[i];
	return tly_pe_ctl_reopen(c, opts, names, c->g.n);
}

int tly_pe_ctl_set_overflow(void *ctl, int k, long long threshold, int tag, tly_ovf_cb cb, void *arg)
{
	struct tly_pe_ctl *c = ctl;
	const char *names[TLY_PE_MAX_EVENTS];
	long long old;
	int rc, n;

	if (c && tly_pe_park_wake(c) != PAPI_OK)   /* a parked set: its descriptors back first */
		return tly_err_set(PAPI_ESYS, "perf_event: cannot reopen the counters of a parked set");
	if (!c || k < 0 || k >= c->g.n || threshold < 0 || (threshold && !cb))
		return tly_err_set(PAPI_EINVAL, "perf_event: bad overflow request for counter %d", k);
	if (c->opts.multiplex && threshold)
		return tly_err_set(PAPI_ECNFLCT, "perf_event: a multiplexed set cannot overflow; "
		                   "turn multiplexing off or use another event set");
	old = c->ovf.threshold[k];
	c->ovf.threshold[k] = threshold;
	c->ovf.tag[k] = tag;
	if (threshold) {
		c->ovf.cb = cb;
		c->ovf.arg = arg;
	}
	c->ovf.any = 0;
	for (int i = 0; i < c->g.n; i++)
		c->ovf.any |= c->ovf.threshold[i] > 0;
	n = tly_pe_ctl_names(c, names);
	rc = tly_pe_ctl_reopen(c, &c->opts, names, n);
	if (rc != PAPI_OK) {
		c->ovf.threshold[k] = old;
		c->ovf.any = 0;
		for (int i = 0; i < c->g.n; i++)
			c->ovf.any |= c->ovf.threshold[i] > 0;
	}
	return rc;
}

int tly_pe_ctl_names(const struct tly_pe_ctl *c, const char **names)
{
	for (int i = 0; i < c->g.n; i++)
		names[i] = c->names[i];
	return c->g.n;
}

static __attribute__((noinline)) int ioctl_failed(const struct tly_pe_ctl *c, int s)
{
	return tly_pe_fail(errno, TLY_PE_OP_IOCTL, c->names[c->g.pos[c->g.sub_start[s]]]);
}

/* One ioctl per sub-group leader (usually one in all). */
static inline int leaders_ioctl(const struct tly_pe_ctl *c, unsigned long req, unsigned long arg)
{
	const struct tly_pe_group *g = &c->g;

	if (g->nsub == 1)
		return ioctl(g->sub_fd[0], req, arg) < 0 ? ioctl_failed(c, 0) : PAPI_OK;
	for (int s = 0; s < g->nsub; s++)
		if (ioctl(g->sub_fd[s], req, arg) < 0)
			return ioctl_failed(c, s);
	return PAPI_OK;
}

int tly_pe_ctl_start(void *ctl)
{
	struct tly_pe_ctl *c = ctl;
	int rc;

	if (!c)
		return PAPI_EINVAL;
	rc = tly_pe_park_wake(c);
	if (rc != PAPI_OK)
		return rc;
	rc = c->ovf.any ? tly_pe_ovf_start(c) : PAPI_OK;
	c->based = 0;
	if (rc == PAPI_OK && c->mpx.on)
		rc = tly_pe_mpx_start(c);
	else if (rc == PAPI_OK) {
		rc = leaders_ioctl(c, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
		if (rc == PAPI_OK)
			rc = leaders_ioctl(c, PERF_EVENT_IOC_ENABLE, 0);
	}
	if (rc != PAPI_OK)
		tly_pe_ovf_stop(c);
	return rc;
}

int tly_pe_ctl_stop(void *ctl)
{
	struct tly_pe_ctl *c = ctl;
	int rc;

	if (!c)
		return PAPI_EINVAL;
	rc = c->mpx.on ? tly_pe_mpx_stop(c) : leaders_ioctl(c, PERF_EVENT_IOC_DISABLE, 0);
	/* only sampling and rotating sets routed signals to this thread */
	if (c->ovf.any || c->mpx.rotate)
		tly_pe_ovf_stop(c);
	tly_pe_park_stopped(c);
	return rc;
}

int tly_pe_ctl_reset(void *ctl)
{
	struct tly_pe_ctl *c = ctl;
	int rc;

	if (!c)
		return PAPI_EINVAL;
	if (c->mpx.on)
		return tly_pe_mpx_reset(c);
	/* user-space readable (so running, in this thread, not sampling):
	 * remember the counts instead of a system call */
	if (c->g.rdpmc && tly_pe_rdpmc_read_all(c->g.pages, c->g.n, c->base) == PAPI_OK) {
		c->based = 1;
		return PAPI_OK;
	}
	c->based = 0;
	rc = leaders_ioctl(c, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
	if (c->ovf.any)
		tly_pe_ovf_reset(c);
	return rc;
}

static void unpack(const struct tly_pe_group *g, const uint64_t *b, int s, long long *vals)
{
	const int *pos = g->pos + g->sub_start[s];

	if (g->nogroup)
		vals[pos[0]] = (long long)b[0];
	else
		for (int j = 0; j < g->sub_cnt[s]; j++)
			vals[pos[j]] = (long long)b[3 + j];
}

/* One read() per sub-group (one in all for a set of one kind).  The
 * buffer is on the stack so that a signal handler of the same thread
 * (software overflow) may read too; out of line so that the user-space
 * path below sets up no frame for it. */
static __attribute__((noinline)) int read_sys(struct tly_pe_ctl *c, long long *vals)
{
	uint64_t buf[3 + TLY_PE_MAX_EVENTS];
	ssize_t got;

	for (int s = 0; s < c->g.nsub; s++) {
		got = read(c->g.sub_fd[s], buf, c->g.sub_bytes[s]);
		if (got != (ssize_t)c->g.sub_bytes[s])
			return tly_pe_fail(got < 0 ? errno : EIO, TLY_PE_OP_READ, c->names[c->g.pos[c->g.sub_start[s]]]);
		unpack(&c->g, buf, s, vals);
	}
	return PAPI_OK;
}

/* The hot path: user-space reads where the counters allow them, else
 * read_sys; nothing else. */
static __attribute__((noinline)) void sub_base(const struct tly_pe_ctl *c, long long *vals)
{
	for (int i = 0; i < c->g.n; i++)
		vals[i] -= c->base[i];
}

int tly_pe_ctl_read(void *ctl, long long *vals)
{
	struct tly_pe_ctl *c = ctl;
	int rc;

	if (!c || !vals)
		return PAPI_EINVAL;
	if (c->mpx.on)
		return tly_pe_mpx_read(c, vals);
	if (!c->g.rdpmc || tly_pe_rdpmc_read_all(c->g.pages, c->g.n, vals) != PAPI_OK) {
		rc = read_sys(c, vals);
		if (rc != PAPI_OK)
			return rc;
	}
	if (c->based)
		sub_base(c, vals);
	return PAPI_OK;
}

void tly_pe_ctl_cleanup(void *ctl)
{
	struct tly_pe_ctl *c = ctl;

	if (!c)
		return;
	tly_pe_mpx_stop(c);
	tly_pe_ovf_stop(c);
	tly_pe_ovf_unmap(c);
	tly_pe_group_close(&c->g);
	tly_pe_park_forget(c);
}

int tly_pe_ctl_fds(void *ctl, int *fds, int max)
{
	struct tly_pe_ctl *c = ctl;
	int n = 0;

	if (!c || !fds || max < 0)
		return PAPI_EINVAL;
	if (tly_pe_park_wake(c) != PAPI_OK)
		return 0;
	for (int s = 0; s < c->g.nsub; s++)
		for (int j = 0; j < c->g.sub_cnt[s] && n < max; j++)
			fds[n++] = c->g.fds[c->g.pos[c->g.sub_start[s] + j]];
	return n;
}

int tly_pe_ctl_groups(void *ctl, int *fds, size_t *bytes, int max)
{
	struct tly_pe_ctl *c = ctl;
	int s;

	if (!c || !fds || !bytes || max < 0)
		return PAPI_EINVAL;
	if (tly_pe_park_wake(c) != PAPI_OK)
		return 0;
	for (s = 0; s < c->g.nsub && s < max; s++) {
		fds[s] = c->g.sub_fd[s];
		bytes[s] = c->g.sub_bytes[s];
	}
	return s;
}
