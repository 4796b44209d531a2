/*
 * pe_ctl.c - control state of one event set: one perf group.
 *
 * The first event leads the group (opened disabled) and the others follow
 * it, so one ioctl on the leader with PERF_IOC_FLAG_GROUP starts, stops or
 * resets them all together and one read() returns every count.  Counters
 * are opened one per group instead ("per_fd") when the set is multiplexed,
 * so the kernel can rotate them, and when the kernel refuses inherit
 * together with PERF_FORMAT_GROUP.
 */
#include "pe_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "core/errors.h"

#define GROUP_FMT (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
#define SINGLE_FMT (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
#define DOM_MASK (PAPI_DOM_USER | PAPI_DOM_KERNEL | PAPI_DOM_SUPERVISOR)

static void group_clear(struct tly_pe_group *g)
{
	memset(g, 0, sizeof *g);
	for (int i = 0; i < TLY_PE_MAX_EVENTS; i++)
		g->fds[i] = -1;
}

static void group_close(struct tly_pe_group *g)
{
	for (int i = 0; i < g->n; i++) {
		tly_pe_rdpmc_unmap(g->pages[i]);
		if (g->fds[i] >= 0)
			close(g->fds[i]);
	}
	group_clear(g);
}

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

static long target_pid(const struct tly_ctl_opts *o)
{
	if (o->granularity == PAPI_GRN_SYS)
		return -1;
	return o->attach_tid > 0 ? o->attach_tid : 0;
}

/* Open counter i of the group; 0 or the errno of perf_event_open. */
static int open_one(const struct tly_ctl_opts *o, const char *name, int i, struct tly_pe_group *g, int *rc)
{
	struct perf_event_attr a;
	int leader = i == 0 || g->per_fd;

	*rc = tly_pe_encode(name, o->domain & DOM_MASK, &a);
	if (*rc != PAPI_OK)
		return 0;
	a.disabled = leader ? 1 : 0;
	a.inherit = o->inherit ? 1 : 0;
	a.read_format = g->per_fd ? SINGLE_FMT : GROUP_FMT;
	g->fds[i] = tly_pe_open(&a, target_pid(o), o->cpu, leader ? -1 : g->fds[0], PERF_FLAG_FD_CLOEXEC);
	if (g->fds[i] < 0)
		return errno;
	g->n = i + 1;
	return 0;
}

/* Enable the group briefly on our own thread: a group the PMU cannot hold
 * opens fine but never runs. */
static int check_schedulable(const struct tly_pe_group *g, const char *name)
{
	uint64_t buf[3 + TLY_PE_MAX_EVENTS];
	size_t want = (size_t)(3 + g->n) * sizeof buf[0];
	ssize_t got;

	if (ioctl(g->fds[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0)
		return tly_pe_fail(errno, TLY_PE_OP_IOCTL, name);
	got = read(g->fds[0], buf, want);
	ioctl(g->fds[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	ioctl(g->fds[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
	if (got != (ssize_t)want)
		return tly_pe_fail(got < 0 ? errno : EIO, TLY_PE_OP_READ, name);
	if (buf[2] == 0)
		return tly_err_set(PAPI_ECNFLCT, "perf_event: the group led by %s (%d events) opened but never "
		                   "ran: the PMU cannot count these events together; use fewer events or "
		                   "multiplexing", name, g->n);
	return PAPI_OK;
}

static void map_pages(const struct tly_ctl_opts *o, struct tly_pe_group *g)
{
	if (target_pid(o) != 0 || o->cpu >= 0 || o->inherit || g->per_fd || !tly_pe_probe_get()->rdpmc_ok)
		return;
	g->rdpmc = 1;
	for (int i = 0; i < g->n; i++)
		if (!(g->pages[i] = tly_pe_rdpmc_map(g->fds[i])))
			g->rdpmc = 0;
}

/* PAPI_OK or the error (detail set); *err is the failing errno, if any. */
static int open_try(const struct tly_ctl_opts *o, const char *const *names, int n, struct tly_pe_group *g,
                    int *err)
{
	int rc = PAPI_OK;

	*err = 0;
	for (int i = 0; i < n && !*err && rc == PAPI_OK; i++) {
		*err = open_one(o, names[i], i, g, &rc);
		if (*err)
			rc = tly_pe_fail(*err, i && !g->per_fd ? TLY_PE_OP_OPEN_MEMBER : TLY_PE_OP_OPEN, names[i]);
	}
	if (rc == PAPI_OK && n && !g->per_fd && target_pid(o) == 0 && o->cpu < 0)
		rc = check_schedulable(g, names[0]);
	if (rc != PAPI_OK)
		group_close(g);
	return rc;
}

static int open_group(const struct tly_ctl_opts *o, const char *const *names, int n, struct tly_pe_group *g)
{
	int rc, err;

	group_clear(g);
	g->per_fd = o->multiplex ? 1 : 0;
	rc = open_try(o, names, n, g, &err);
	if (err == EINVAL && o->inherit && !g->per_fd) {
		/* some kernels refuse inherit with PERF_FORMAT_GROUP */
		group_clear(g);
		g->per_fd = 1;
		rc = open_try(o, names, n, g, &err);
	}
	if (rc == PAPI_OK)
		map_pages(o, g);
	return rc;
}

int tly_pe_ctl_init(void *ctl, const struct tly_ctl_opts *opts)
{
	struct tly_pe_ctl *c = ctl;
	struct tly_ctl_opts dfl = { .domain = PAPI_DOM_USER, .granularity = PAPI_GRN_THR, .cpu = -1 };

	if (!c)
		return PAPI_EINVAL;
	memset(c, 0, sizeof *c);
	group_clear(&c->g);
	c->opts = opts ? *opts : dfl;
	return check_opts(&c->opts);
}

int tly_pe_ctl_update(void *ctl, const char *const *names, int n)
{
	struct tly_pe_ctl *c = ctl;
	struct tly_pe_group g;
	int rc;

	if (!c || n < 0 || (n > 0 && !names))
		return PAPI_EINVAL;
	if (n > TLY_PE_MAX_EVENTS)
		return tly_err_set(PAPI_ECOUNT, "perf_event: %d events in one set, the limit is %d", n,
		                   TLY_PE_MAX_EVENTS);
	for (int i = 0; i < n; i++)
		if (!names[i] || strlen(names[i]) >= TLY_PE_NAME_LEN)
			return tly_err_set(PAPI_EINVAL, "perf_event: event %d has no name or one too long", i);
	rc = open_group(&c->opts, names, n, &g);
	if (rc != PAPI_OK)
		return rc;
	group_close(&c->g);
	c->g = g;
	for (int i = 0; i < n; i++)
		snprintf(c->names[i], sizeof c->names[i], "%s", names[i]);
	return PAPI_OK;
}

int tly_pe_ctl_set_opts(void *ctl, const struct tly_ctl_opts *opts)
{
	struct tly_pe_ctl *c = ctl;
	const char *names[TLY_PE_MAX_EVENTS];
	struct tly_pe_group g;
	int rc;

	if (!c || !opts)
		return PAPI_EINVAL;
	rc = check_opts(opts);
	if (rc != PAPI_OK || c->g.n == 0) {
		if (rc == PAPI_OK)
			c->opts = *opts;
		return rc;
	}
	for (int i = 0; i < c->g.n; i++)
		names[i] = c->names[i];
	rc = open_group(opts, names, c->g.n, &g);
	if (rc != PAPI_OK)
		return rc;
	group_close(&c->g);
	c->g = g;
	c->opts = *opts;
	return PAPI_OK;
}

/* One ioctl on the leader for a group, one per counter otherwise. */
static int group_ioctl(struct tly_pe_ctl *c, unsigned long req)
{
	struct tly_pe_group *g = &c->g;

	if (!g->per_fd) {
		if (g->n && ioctl(g->fds[0], req, PERF_IOC_FLAG_GROUP) < 0)
			return tly_pe_fail(errno, TLY_PE_OP_IOCTL, c->names[0]);
		return PAPI_OK;
	}
	for (int i = 0; i < g->n; i++)
		if (ioctl(g->fds[i], req, 0) < 0)
			return tly_pe_fail(errno, TLY_PE_OP_IOCTL, c->names[i]);
	return PAPI_OK;
}

int tly_pe_ctl_start(void *ctl)
{
	int rc;

	if (!ctl)
		return PAPI_EINVAL;
	rc = group_ioctl(ctl, PERF_EVENT_IOC_RESET);
	return rc == PAPI_OK ? group_ioctl(ctl, PERF_EVENT_IOC_ENABLE) : rc;
}

int tly_pe_ctl_stop(void *ctl)
{
	return ctl ? group_ioctl(ctl, PERF_EVENT_IOC_DISABLE) : PAPI_EINVAL;
}

int tly_pe_ctl_reset(void *ctl)
{
	return ctl ? group_ioctl(ctl, PERF_EVENT_IOC_RESET) : PAPI_EINVAL;
}

/* Multiplexed counters are scaled by enabled/running time, as PAPI does. */
static int read_each(struct tly_pe_ctl *c, long long *vals)
{
	uint64_t v[3];

	for (int i = 0; i < c->g.n; i++) {
		ssize_t got = read(c->g.fds[i], v, sizeof v);

		if (got != (ssize_t)sizeof v)
			return tly_pe_fail(got < 0 ? errno : EIO, TLY_PE_OP_READ, c->names[i]);
		if (v[2] && v[2] < v[1])
			v[0] = (uint64_t)((double)v[0] * ((double)v[1] / (double)v[2]));
		vals[i] = (long long)v[0];
	}
	return PAPI_OK;
}

static int read_user(const struct tly_pe_ctl *c, long long *vals)
{
	for (int i = 0; i < c->g.n; i++)
		if (tly_pe_rdpmc_read(c->g.pages[i], &vals[i]) != PAPI_OK)
			return PAPI_ECMP;
	return PAPI_OK;
}

/* The hot path: one read() of the whole group, nothing else. */
int tly_pe_ctl_read(void *ctl, long long *vals)
{
	struct tly_pe_ctl *c = ctl;
	size_t want;
	ssize_t got;
	int n;

	if (!c || !vals)
		return PAPI_EINVAL;
	n = c->g.n;
	if (c->g.rdpmc && read_user(c, vals) == PAPI_OK)
		return PAPI_OK;
	if (c->g.per_fd)
		return read_each(c, vals);
	if (n == 0)
		return PAPI_OK;
	want = (size_t)(3 + n) * sizeof c->buf[0];
	got = read(c->g.fds[0], c->buf, want);
	if (got != (ssize_t)want)
		return tly_pe_fail(got < 0 ? errno : EIO, TLY_PE_OP_READ, c->names[0]);
	for (int i = 0; i < n; i++)
		vals[i] = (long long)c->buf[3 + i];
	return PAPI_OK;
}

void tly_pe_ctl_cleanup(void *ctl)
{
	struct tly_pe_ctl *c = ctl;

	if (c)
		group_close(&c->g);
}

int tly_pe_ctl_fds(void *ctl, int *fds, int max)
{
	struct tly_pe_ctl *c = ctl;
	int n = 0;

	if (!c || !fds || max < 0)
		return PAPI_EINVAL;
	for (; n < c->g.n && n < max; n++)
		fds[n] = c->g.fds[n];
	return n;
}
