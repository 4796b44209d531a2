/*
 * pass_rows.c - the writer module "passes": rows of the multi-pass tables
 * (passes, pass_values).  Every rank writes its own schedule rows so a reader
 * can check that all ranks used the same one.
 */
#include "output/out_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passes/passes.h"

static int sched_wanted(const struct tly_pass_state *job, int k)
{
	const struct tly_rt_sched *s = k ? &job->gpu : &job->cpu;

	return s->nev > 0 && (s->npasses >= 2 || !job->agrees[k] || k == 1 || job->rotate || job->replay);
}

static int64_t sched_rows(struct tly_rt_proc *p, const struct tly_pass_state *job, int k,
			  struct tly_row_passes *row)
{
	const struct tly_rt_sched *s = k ? &job->gpu : &job->cpu;
	uint64_t own = job->own_hash[k] ? job->own_hash[k] : s->hash;

	if (!sched_wanted(job, k))
		return 0;
	for (int i = 0; row && i < s->nev; i++, row++) {
		row->rank = p->rank;
		row->event = i;
		snprintf(row->name, sizeof row->name, "%s", s->names[i]);
		row->pass = s->pass_of[i];
		row->npasses = s->npasses;
		snprintf(row->mode, sizeof row->mode, "%s",
			 !k ? (job->replay ? "application replay" : "region rotation")
			 : job->gpu_image ? TLY_PASS_MODE_IMAGE : job->gpu_replay ? "application replay"
			 : s->npasses > 1 ? "kernel replay" : "one pass");
		snprintf(row->device, sizeof row->device, "%s", s->device);
		row->config_hash = (int64_t)own;
		row->rank0_hash = (int64_t)(job->r0_hash[k] ? job->r0_hash[k] : own);
		row->agrees = job->agrees[k];
	}
	return s->nev;
}

struct val_ctx {
	struct tly_rt_proc *p;
	struct tly_row_pass_values *rows;
	int64_t n, cap;
};

static void one_region(const struct tly_rt_thread *t, const struct tly_pass_acc *a, void *arg)
{
	struct val_ctx *c = arg;
	const struct tly_rt_sched *s = &tly_pass_state()->cpu;
	int64_t total = 0;

	for (int q = 0; q < s->npasses; q++)
		total += a->visits[q];
	for (int i = 0; i < s->nev && c->n < c->cap; i++) {
		struct tly_row_pass_values *v = &c->rows[c->n++];
		int q = s->pass_of[i];

		v->rank = c->p->rank;
		v->thread = t->index;
		tly_rt_node_path_shown(t, a->node, v->region, sizeof v->region);
		snprintf(v->event, sizeof v->event, "%s", s->names[i]);
		v->pass = q;
		v->visits = a->visits[q];
		v->total_visits = total;
		v->value = a->value[i];
		v->estimate = a->visits[q] ? (int64_t)((long double)a->value[i] * total / a->visits[q] + 0.5L) : 0;
		v->extrapolated = a->visits[q] != total;
	}
}

static void count_region(const struct tly_rt_thread *t, const struct tly_pass_acc *a, void *arg)
{
	(void)t;
	(void)a;
	*(int64_t *)arg += tly_pass_state()->cpu.nev;
}

static void pass_rows(const struct tly_out_ctx *c0, struct tly_rows *r)
{
	struct tly_rt_proc *p = c0->p;
	const struct tly_pass_state *job = tly_pass_state();
	struct tly_row_passes *s = calloc((size_t)(job->cpu.nev + job->gpu.nev + 1), sizeof *s);
	struct val_ctx c = { .p = p };
	int64_t n = 0;

	if (s) {
		n = sched_rows(p, job, 0, s);
		n += sched_rows(p, job, 1, s + n);
	}
	r->t[TLY_T_passes] = s;
	r->n[TLY_T_passes] = n;
	if (job->rotate)
		tly_pass_foreach(count_region, &c.cap);
	c.rows = calloc((size_t)(c.cap + 1), sizeof *c.rows);
	if (c.rows && job->rotate)
		tly_pass_foreach(one_region, &c);
	r->t[TLY_T_pass_values] = c.rows;
	r->n[TLY_T_pass_values] = c.n;
}

const struct tly_out_module tly_out_mod_passes = {
	.name = "passes",
	.tables = (const enum tly_table[]){ TLY_T_passes, TLY_T_pass_values, TLY_NTABLES },
	.rows = pass_rows,
};
