/*
 * gpu_rows.c - the writer module "gpu": the gpu_kernels table, one row per
 * rank, device, launching thread, region, kernel and metric.
 */
#include "output/out_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_collect.h"
#include "gpu/gpu_rt.h"
#include "runtime/rt_parts.h"
#include "runtime/rt_sched.h"

/* gpu_dev_rows.c */
void tly_gpu_dev_rows(const struct tly_out_ctx *c, struct tly_rows *r);

static void one_row(struct tly_row_gpu_kernels *row, struct tly_rt_proc *p, const struct tly_gpu_kstat *k,
		    int i, int replay, const struct tly_rt_sched_view *job)
{
	const struct tly_rt_sched *s = job->gpu;

	row->rank = p->rank;
	row->device = k->device;
	row->thread = k->t ? k->t->index : -1;
	if (k->pt)
		tly_rt_node_path_shown(k->pt, k->node, row->region, sizeof row->region);
	else
		snprintf(row->region, sizeof row->region, "?");
	if (snprintf(row->kernel, sizeof row->kernel, "%s", k->kernel ? k->kernel : "?") >= (int)sizeof row->kernel &&
	    i == 0)
		tly_rt_log(1, "kernel name of %zu bytes cut to %zu in gpu_kernels: %.80s...", strlen(k->kernel),
			   sizeof row->kernel - 1, k->kernel);
	row->launches = k->launches;
	snprintf(row->metric, sizeof row->metric, "%s", s->names[i] + 7);   /* without "cuda:::" */
	row->pass = s->pass_of[i];
	snprintf(row->replay, sizeof row->replay, "%s", replay ? "kernel replay"
		 : *job->gpu_image ? TLY_RT_MODE_IMAGE
		 : *job->gpu_replay ? "application replay" : "none");
	/* CUPTI's kernel replay flushes before the first pass only, Tally's
	 * own before every pass (cuda_replay_cache.c, cuda_replay_own.c) */
	snprintf(row->cache, sizeof row->cache, "%s", tly_gpu_rt_ranges() ? "none"
		 : replay && !strcmp(tly_rt_proc()->opt.raw.cuda_cache, "flush") &&
		   tally_gpu_metric_cache_dependent(row->metric) && !tally_gpu_replay_flushes_each_pass()
		 ? "flush, pass 1"
		 : tly_rt_proc()->opt.raw.cuda_cache);
	row->total = k->total[i];
	row->min = k->min[i];
	row->max = k->max[i];
	row->mean = k->launches ? k->total[i] / (double)k->launches : 0;
}

/* A partial file (signal, MPI_Abort, exit without MPI_Finalize) gets no
 * GPU rows: harvesting drives CUPTI, which must not run in those paths. */
static void gpu_rows(const struct tly_out_ctx *c, struct tly_rows *r)
{
	struct tly_rt_proc *p = c->p;
	int partial = c->partial;
	int64_t nk = 0, n = 0;
	int replay = 0;
	const struct tly_gpu_kstat *ks = partial ? NULL : tly_gpu_rt_collect(&nk, &replay);
	const struct tly_rt_sched_view *job = tly_rt_parts_sched();   /* the passes' (rt_sched.h) */
	int nm = job ? job->gpu->nev : 0;
	struct tly_row_gpu_kernels *rows = calloc((size_t)(nk * nm + 1), sizeof *rows);

	for (int64_t k = 0; rows && ks && k < nk; k++)
		for (int i = 0; i < nm; i++)
			one_row(&rows[n++], p, &ks[k], i, replay, job);
	r->t[TLY_T_gpu_kernels] = rows;
	r->n[TLY_T_gpu_kernels] = rows ? n : 0;
	tly_gpu_dev_rows(c, r);   /* after the harvest: the launches are final */
}

const struct tly_out_module tly_out_mod_gpu = {
	.name = "gpu",
	.tables = (const enum tly_table[]){ TLY_T_gpu_kernels, TLY_T_gpu_devices, TLY_NTABLES },
	.rows = gpu_rows,
};
