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
 * counters that overflow get sampling fields (pe_overflow.c).
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

/* The privilege levels to count: the domain's USER, KERNEL and
 * SUPERVISOR bits; PAPI_DOM_ALL means every level this kernel lets the
 * thread count (no kernel under perf_event_paranoid 2). */
static int count_domain(int domain)
{
	if ((domain & PAPI_DOM_ALL) == PAPI_DOM_ALL && !tly_pe_probe_get()->kernel_ok)
		return PAPI_DOM_USER;
	return domain & DOM_MASK;
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

/* Which PMU context the kernel puts a counter in. */
static int event_kind(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE || a->type == PERF_TYPE_RAW)
		return 0;
	if (a->type == PERF_TYPE_SOFTWARE)
		return 1 + (a->config == PERF_COUNT_SW_TASK_CLOCK) + 2 * (a->config == PERF_COUNT_SW_CPU_CLOCK);
	return 4 + (int)a->type;
}

/* Assign counters to sub-groups: one per kind, or one each when
 * multiplexed or when the kernel refuses group reads. */
static void plan(struct tly_pe_group *g, const struct perf_event_attr *attrs, int n, int alone)
{
	int kind[TLY_PE_MAX_EVENTS], k = 0;

	g->nsub = 0;
	for (int i = 0; i < n; i++) {
		int s = 0, want = event_kind(&attrs[i]);

		while (!alone && s < g->nsub && kind[s] != want)
			s++;
		if (alone)
			s = g->nsub;
		if (s == g->nsub) {
			kind[s] = want;
			g->sub_cnt[g->nsub++] = 0;
		}
		g->sub_cnt[s]++;
	}
	for (int s = 0; s < g->nsub; s++) {
		g->sub_start[s] = k;
		for (int i = 0; i < n && !alone; i++)
			if (event_kind(&attrs[i]) == kind[s])
				g->pos[k++] = i;
		if (alone)
			g->pos[k++] = s;
		g->sub_bytes[s] = (size_t)(g->nogroup ? 3 : 3 + g->sub_cnt[s]) * sizeof(uint64_t);
	}
}

/* Where each counter's value lies in a read() of its sub-group, for
 * counters whose samples carry their count (pe_overflow.c). */
static void index_reads(struct tly_pe_group *g, const struct perf_event_attr *attrs)
{
	for (int s = 0; s < g->nsub; s++)
		for (int j = 0; j < g->sub_cnt[s]; j++) {
			int i = g->pos[g->sub_start[s] + j];

			g->sub_of[i] = s;
			g->rd[i] = 0;
			if (attrs[i].sample_type & PERF_SAMPLE_READ)
				g->rd[i] = 1 + (g->nogroup ? 0 : 3 + j);
		}
}

/* Open counter `i` into its sub-group; 0 or the errno of perf_event_open. */
static int open_one(const struct tly_ctl_opts *o, struct perf_event_attr *a, struct tly_pe_group *g, int i,
                    int leader_fd)
{
	a->disabled = leader_fd < 0 ? 1 : 0;
	a->inherit = o->inherit ? 1 : 0;
	a->read_format = g->nogroup ? SINGLE_FMT : GROUP_FMT;
	g->fds[i] = tly_pe_open(a, target_pid(o), o->cpu, leader_fd, PERF_FLAG_FD_CLOEXEC);
	return g->fds[i] < 0 ? errno : 0;
}

/* Enable a sub-group briefly on our own thread: a group the PMU cannot
 * hold opens fine but never runs. */
static int check_schedulable(const struct tly_pe_group *g, int s, const char *name)
{
	uint64_t buf[3 + TLY_PE_MAX_EVENTS];
	ssize_t got;

	if (ioctl(g->sub_fd[s], PERF_EVENT_IOC_ENABLE, 0) < 0)
		return tly_pe_fail(errno, TLY_PE_OP_IOCTL, name);
	got = read(g->sub_fd[s], buf, g->sub_bytes[s]);
	ioctl(g->sub_fd[s], PERF_EVENT_IOC_DISABLE, 0);
	ioctl(g->sub_fd[s], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
	if (got != (ssize_t)g->sub_bytes[s])
		return tly_pe_fail(got < 0 ? errno : EIO, TLY_PE_OP_READ, name);
	if (buf[2] == 0)
		return tly_err_set(PAPI_ECNFLCT, "perf_event: the group led by %s (%d events) opened but never "
		                   "ran: the PMU cannot count these events together; use fewer events or "
		                   "multiplexing", name, g->sub_cnt[s]);
	return PAPI_OK;
}

static void map_pages(const struct tly_ctl_opts *o, struct tly_pe_group *g)
{
	if (target_pid(o) != 0 || o->cpu >= 0 || o->inherit || g->nogroup || !tly_pe_probe_get()->rdpmc_ok)
		return;
	g->rdpmc = 1;
	for (int i = 0; i < g->n; i++)
		if (!(g->pages[i] = tly_pe_rdpmc_map(g->fds[i])))
			g->rdpmc = 0;
}

static int open_subs(const struct tly_ctl_opts *o, const char *const *names, struct perf_event_attr *attrs,
                     struct tly_pe_group *g, int *err)
{
	for (int s = 0; s < g->nsub; s++) {
		for (int j = 0; j < g->sub_cnt[s]; j++) {
			int i = g->pos[g->sub_start[s] + j];

			*err = open_one(o, &attrs[i], g, i, j ? g->sub_fd[s] : -1);
			if (*err)
				return tly_pe_fail(*err, j ? TLY_PE_OP_OPEN_MEMBER : TLY_PE_OP_OPEN, names[i]);
			if (!j)
				g->sub_fd[s] = g->fds[i];
		}
	}
	for (int s = 0; s < g->nsub; s++) {
		int rc = PAPI_OK;

		if (!g->nogroup && !o->multiplex && target_pid(o) == 0 && o->cpu < 0)
			rc = check_schedulable(g, s, names[g->pos[g->sub_start[s]]]);
		if (rc != PAPI_OK)
			return rc;
	}
	return PAPI_OK;
}

/* PAPI_OK or the error (detail set); *err is the failing errno, if any. */
static int open_try(const struct tly_pe_ctl *c, const struct tly_ctl_opts *o, const char *const *names, int n,
                    struct tly_pe_group *g, int *err)
{
	struct perf_event_attr attrs[TLY_PE_MAX_EVENTS];
	int rc = PAPI_OK;

	*err = 0;
	for (int i = 0; i < n && rc == PAPI_OK; i++) {
		rc = tly_pe_encode(names[i], count_domain(o->domain), &attrs[i]);
		tly_pe_ovf_attr(c, i, o->inherit, &attrs[i]);
		if (target_pid(o) == 0 && o->cpu < 0 && !o->inherit)
			tly_pe_rdpmc_attr(&attrs[i]); /* counters map_pages may map */
	}
	if (rc != PAPI_OK)
		return rc;
	g->n = n;
	plan(g, attrs, n, o->multiplex || g->nogroup);
	index_reads(g, attrs);
	rc = open_subs(o, names, attrs, g, err);
	if (rc != PAPI_OK)
		group_close(g);
	return rc;
}

static int open_group(const struct tly_pe_ctl *c, const struct tly_ctl_opts *o, const char *const *names, int n,
                      struct tly_pe_group *g)
{
	int rc, err;

	if (!o->multiplex && (rc = tly_pe_budget_check(n)) != PAPI_OK)
		return rc;
	group_clear(g);
	rc = open_try(c, o, names, n, g, &err);
	if (err == EINVAL && o->inherit) {
		/* some kernels refuse inherit with PERF_FORMAT_GROUP */
		group_clear(g);
		g->nogroup = 1;
		rc = open_try(c, o, names, n, g, &err);
	}
	if (rc == PAPI_OK && !c->ovf.any)
		map_pages(o, g);
	return rc;
}

int tly_pe_ctl_reopen(struct tly_pe_ctl *c, const struct tly_ctl_opts *o, const char *const *names, int n)
{
	struct tly_pe_group g;
	int rc = open_group(c, o, names, n, &g);

	if (rc != PAPI_OK)
		return rc;
	tly_pe_ovf_unmap(c);
	group_close(&c->g);
	c->g = g;
	if (&c->opts != o)
		c->opts = *o;
	rc = tly_pe_ovf_map(c);
	tly_pe_mpx_plan(c);
	if (rc == PAPI_OK)
		tly_pe_park_opened(c);
	return rc;
}

int tly_pe_ctl_open_as(struct tly_pe_ctl *c, const struct tly_ctl_opts *o, const char *const *names, int n)
{
	struct tly_pe_group g;
	int rc = open_group(c, o, names, n, &g);

	if (rc != PAPI_OK)
		return rc;
	group_close(&c->g);
	c->g = g;
	return PAPI_OK;
}

void tly_pe_ctl_close(struct tly_pe_ctl *c)
{
	group_close(&c->g);
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
	if (c->ovf.nclock)
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
	group_close(&c->g);
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
