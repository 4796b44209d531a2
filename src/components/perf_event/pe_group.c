/*
 * pe_group.c - opening the perf groups of a set's counters (and closing
 * them): sub-groups by event kind, leaders opened disabled, a group the
 * PMU cannot hold refused at once, user pages mapped for rdpmc.  Below
 * pe_ctl.c (which reopens a set when its events or options change) and
 * pe_park.c (which closes and reopens idle sets); moved from pe_ctl.c,
 * whose top comment says why groups are built this way.
 */
#include "pe_internal.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "services/err_detail.h"

#define GROUP_FMT (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
#define SINGLE_FMT (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING)
#define DOM_MASK (PAPI_DOM_USER | PAPI_DOM_KERNEL | PAPI_DOM_SUPERVISOR)

void tly_pe_group_clear(struct tly_pe_group *g)
{
	memset(g, 0, sizeof *g);
	for (int i = 0; i < TLY_PE_MAX_EVENTS; i++)
		g->fds[i] = -1;
}

void tly_pe_group_close(struct tly_pe_group *g)
{
	for (int i = 0; i < g->n; i++) {
		tly_pe_rdpmc_unmap(g->pages[i]);
		if (g->fds[i] >= 0)
			close(g->fds[i]);
	}
	tly_pe_group_clear(g);
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
			g->period[i] = (long long)attrs[i].sample_period;
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
	g->fds[i] = tly_perf_open(a, target_pid(o), o->cpu, leader_fd, PERF_FLAG_FD_CLOEXEC);
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
		tly_pe_group_close(g);
	return rc;
}

int tly_pe_group_open(const struct tly_pe_ctl *c, const struct tly_ctl_opts *o, const char *const *names, int n,
                      struct tly_pe_group *g)
{
	int rc, err;

	if (!o->multiplex && (rc = tly_pe_budget_check(n)) != PAPI_OK)
		return rc;
	tly_pe_group_clear(g);
	rc = open_try(c, o, names, n, g, &err);
	if (err == EINVAL && o->inherit) {
		/* some kernels refuse inherit with PERF_FORMAT_GROUP */
		tly_pe_group_clear(g);
		g->nogroup = 1;
		rc = open_try(c, o, names, n, g, &err);
	}
	if (rc == PAPI_OK && !c->ovf.any)
		map_pages(o, g);
	return rc;
}

int tly_pe_ctl_open_as(struct tly_pe_ctl *c, const struct tly_ctl_opts *o, const char *const *names, int n)
{
	struct tly_pe_group g;
	int rc = tly_pe_group_open(c, o, names, n, &g);

	if (rc != PAPI_OK)
		return rc;
	tly_pe_group_close(&c->g);
	c->g = g;
	return PAPI_OK;
}

void tly_pe_ctl_close(struct tly_pe_ctl *c)
{
	tly_pe_group_close(&c->g);
}
