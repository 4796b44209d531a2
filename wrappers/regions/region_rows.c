/*
 * region_rows.c - the writer module "regions": this process's rows of the
 * events, ranks, threads, regions and region_stats tables, from the
 * runtime's state.  Tables shared by the job (events, regions) get rows on
 * rank 0 only.
 */
#include "output/out_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/names.h"
#include "regions/budget.h"
#include "runtime/rt_srcname.h"

static void events_rows(struct tly_rt_proc *p, struct tly_rows *r)
{
	struct tly_row_events *e = tly_rows_alloc(r, TLY_T_events, p->nev, sizeof *e);

	for (int i = 0; e && i < p->nev; i++) {
		e[i].index = i;
		snprintf(e[i].name, sizeof e[i].name, "%s", p->ev[i].name);
		snprintf(e[i].component, sizeof e[i].component, "%s", p->ev[i].component);
		snprintf(e[i].units, sizeof e[i].units, "%s", p->ev[i].units);
		snprintf(e[i].description, sizeof e[i].description, "%s", p->ev[i].descr);
	}
}

/* "kind\x1ename[\x1daddress]\x1f..." -> name and address of the last node,
 * path with " / " (names without their addresses). */
static void split_key(const char *key, int32_t *kind, char *name, size_t nlen, char *path, size_t plen,
		      char *addr, size_t alen)
{
	const char *last = strrchr(key, '\x1f'), *nm;
	size_t at = 0, len;

	last = last ? last + 1 : key;
	*kind = atoi(last);
	nm = strchr(last, '\x1e') + 1;
	len = strcspn(nm, "\x1d");
	snprintf(name, nlen, "%.*s", (int)len, nm);
	snprintf(addr, alen, "%s", nm[len] ? nm + len + 1 : "");
	path[0] = '\0';
	for (const char *s = key; *s && at + 4 < plen;) {
		nm = strchr(s, '\x1e') + 1;
		len = strcspn(nm, "\x1f");
		size_t shown = strcspn(nm, "\x1d\x1f");

		at += (size_t)snprintf(path + at, plen - at, "%s%.*s", s == key ? "" : " / ", (int)shown, nm);
		s = nm + len + (nm[len] == '\x1f');
	}
	if (at >= plen)
		path[plen - 1] = '\0';
}

static void region_rows(const struct tly_names *all, struct tly_rows *r)
{
	struct tly_row_regions *g = tly_rows_alloc(r, TLY_T_regions, all->n, sizeof *g);
	char parent[8192];

	for (int i = 0; g && i < all->n; i++) {
		const char *key = tly_names_key(all, i);
		const char *cut = strrchr(key, '\x1f');

		g[i].id = i;
		split_key(key, &g[i].kind, g[i].name, sizeof g[i].name, g[i].path, sizeof g[i].path,
			  g[i].address, sizeof g[i].address);
		g[i].parent = -1;
		if (cut) {
			snprintf(parent, sizeof parent, "%.*s", (int)(cut - key), key);
			g[i].parent = tly_names_find(all, parent);
		}
	}
}

static void stats_rows(struct tly_rt_proc *p, int32_t **gid, struct tly_rows *r)
{
	int64_t n = 0, k = 0;
	int ti = 0;
	struct tly_row_region_stats *s;

	for (struct tly_rt_thread *t = p->threads; t; t = t->next)
		n += t->nnodes;
	s = tly_rows_alloc(r, TLY_T_region_stats, n, sizeof *s);
	for (struct tly_rt_thread *t = p->threads; s && t; t = t->next, ti++)
		for (int32_t i = 0; i < t->nnodes; i++, k++) {
			s[k].rank = p->rank;
			s[k].thread = t->index;
			s[k].region = gid && gid[ti] ? gid[ti][i] : -1;
			s[k].visits = t->nodes[i].visits;
			s[k].incl_ns = t->nodes[i].incl_ns;
			/* exact, and a sampled region's estimate (regions/budget.c) */
			tly_budget_counters(&t->nodes[i], TLY_RT_MAX_EVENTS, s[k].counters);
			s[k].uncounted = p->nev > 0 && !t->nodes[i].counted;
		}
}

/* A thread's per-event cost: each kind of record (regions/region.c's
 * cost account) at its mean timed cost in this run (the start-up's
 * measure when none was timed). */
static int64_t reads_ns(const struct tly_rt_proc *p, const struct tly_rt_thread *t)
{
	return tly_rt_cost_ns(&t->cost[TLY_COST_counter_read], p->counter_read_ns)
	       + tly_rt_cost_ns(&t->cost[TLY_COST_visit], 2 * p->clock_read_ns);
}

/* What the rank's threads add up to (ranks table). */
struct rank_sums {
	int64_t events, trunc, folded, event_ns, waits_skipped, degraded;
	struct tly_rt_cost cost[TLY_COST_N];
};

static void thread_rows(struct tly_rt_proc *p, struct tly_rows *r, struct rank_sums *sum)
{
	struct tly_row_threads *th = tly_rows_alloc(r, TLY_T_threads, p->nthreads, sizeof *th);
	int k = 0;

	for (struct tly_rt_thread *t = p->threads; th && t && k < p->nthreads; t = t->next, k++) {
		th[k].rank = p->rank;
		th[k].thread = t->index;
		th[k].ktid = t->ktid;
		th[k].kind = t->kind;
		sum->trunc += t->truncated;
		sum->folded += t->folded;
		sum->waits_skipped += t->waits_skipped;
		sum->degraded += t->degraded;
		for (int32_t i = 1; i < t->nnodes; i++)
			sum->events += t->nodes[i].visits;
		sum->event_ns += reads_ns(p, t);
		for (int c = 0; c < TLY_COST_N; c++) {
			sum->cost[c].n += t->cost[c].n;
			sum->cost[c].timed += t->cost[c].timed;
			sum->cost[c].timed_ns += t->cost[c].timed_ns;
		}
	}
}

static int64_t mean_ns(const struct tly_rt_cost *c, int64_t fallback)
{
	return c->timed ? c->timed_ns / c->timed : fallback;
}

static void rank_rows(struct tly_rt_proc *p, struct tly_rows *r, const struct rank_sums *sum)
{
	struct tly_row_ranks *k = tly_rows_alloc(r, TLY_T_ranks, 1, sizeof *k);

	if (!k)
		return;
	k->rank = p->rank;
	gethostname(k->host, sizeof k->host - 1);
	k->pid = getpid();
	k->nthreads = p->nthreads;
	k->elapsed_ns = (p->end_ns ? p->end_ns : tly_rt_now()) - p->start_ns;
	k->cpu_ns = p->cpu_ns ? p->cpu_ns : tly_rt_process_cpu_ns();
	k->init_ns = p->init_ns;
	k->mpi_init_ns = p->mpi_init_ns;
	/* and the naming of code addresses at their first event (DWARF) */
	k->event_ns = sum->event_ns + tly_rt_srcname_ns();
	k->exit_ns = p->exit_t0 ? tly_rt_now() - p->exit_t0 : 0;
	k->sampling_ns = p->sampling_ns;
	k->overhead_ns = k->init_ns + k->mpi_init_ns + k->event_ns + k->exit_ns + k->sampling_ns;
	k->region_events = sum->events;
	k->truncated = sum->trunc;
	k->regions_folded = sum->folded;
	k->nvtx_marks_dropped = p->marks_dropped;
	k->counter_read_ns = mean_ns(&sum->cost[TLY_COST_counter_read], p->counter_read_ns);
	k->visit_ns = mean_ns(&sum->cost[TLY_COST_visit], 2 * p->clock_read_ns);
	k->waits_skipped = sum->waits_skipped;
	k->budget_pct = p->opt.budget_pct;
	k->regions_degraded = sum->degraded;
	k->load_cpu_ns = p->load_cpu_ns;
	/* the start-up, MPI_Init's part and the end in CPU time: their wall
	 * times wait for the machine and the slowest rank on a loaded node */
	k->tally_cpu_ns = p->load_cpu_ns + p->init_cpu_ns + p->mpi_init_cpu_ns + k->event_ns + k->sampling_ns
			  + (p->exit_cpu0 ? tly_rt_thread_cpu_ns() - p->exit_cpu0 : 0);
}

/* The regions the cost budget degraded (regions/budget.c), per thread. */
static void degraded_rows(struct tly_rt_proc *p, int32_t **gid, struct tly_rows *r, int64_t n)
{
	struct tly_row_degraded *d = tly_rows_alloc(r, TLY_T_degraded, n, sizeof *d);
	int64_t k = 0, cnt[TLY_RT_MAX_EVENTS];
	int ti = 0;

	for (struct tly_rt_thread *t = p->threads; d && t; t = t->next, ti++)
		for (int32_t i = 0; i < t->nnodes && k < n; i++) {
			const struct tly_rt_node *nd = &t->nodes[i];

			if (!nd->deg)
				continue;
			d[k].rank = p->rank;
			d[k].thread = t->index;
			d[k].region = gid && gid[ti] ? gid[ti][i] : -1;
			d[k].step = nd->deg->step;
			d[k].from_visit = nd->deg->from_visit;
			d[k].from_ns = nd->deg->from_ns;
			d[k].sampled_from_visit = nd->deg->sampled_visit;
			d[k].sampled_from_ns = nd->deg->sampled_ns;
			d[k].sample_n = nd->deg->sample_n;
			d[k].sampled_visits = nd->deg->sampled;
			d[k].visits_only_visit = nd->deg->step3_visit;
			d[k].visits_only_ns = nd->deg->step3_ns;
			d[k].counted_visits = tly_budget_counters(nd, TLY_RT_MAX_EVENTS, cnt);
			d[k].timed_visits = nd->timed_visits;
			d[k].sample_cost_pct = nd->deg->sample_pct;
			d[k++].cost_pct = nd->deg->cost_pct;
		}
}

static void regions_rows(const struct tly_out_ctx *c, struct tly_rows *r)
{
	struct rank_sums sum;

	memset(&sum, 0, sizeof sum);
	if (c->rank0) {
		events_rows(c->p, r);
		region_rows(c->names, r);
	}
	stats_rows(c->p, c->gid, r);
	thread_rows(c->p, r, &sum);
	rank_rows(c->p, r, &sum);
	degraded_rows(c->p, c->gid, r, sum.degraded);
}

const struct tly_out_module tly_out_mod_regions = {
	.name = "regions",
	.tables = (const enum tly_table[]){ TLY_T_events, TLY_T_ranks, TLY_T_threads, TLY_T_regions,
					    TLY_T_region_stats, TLY_T_degraded, TLY_NTABLES },
	.rows = regions_rows,
};
