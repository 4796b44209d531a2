/*
 * pcsamp_rows.c - the writer module "pcsamp": rows of the pc_samples and
 * pcsamp_status tables (GPU PC sampling under the runtime, rt_pcsamp.c).  pc_samples is
 * long: one row per PC record and stall reason with samples, so the
 * reason names live in the rows and no per-device name table is needed.
 */
#include "output/out_module.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu/rt_pcsamp.h"

struct walk {
	struct tly_rt_proc *p;
	const struct tly_pcs_ctx *c;
	struct tly_row_pc_samples *rows;
	int64_t n, cap;
};

static int grow(struct walk *w, int64_t need)
{
	int64_t cap = w->cap ? w->cap : 1024;
	void *m;

	while (cap < need)
		cap *= 2;
	if (cap == w->cap)
		return 0;
	m = realloc(w->rows, (size_t)cap * sizeof *w->rows);
	if (!m)
		return -1;
	w->rows = m;
	w->cap = cap;
	return 0;
}

static int on_sample(const tally_gpu_pc_sample_t *s, void *ud)
{
	struct walk *w = ud;
	int nr = s->num_stalls < w->c->nreasons ? s->num_stalls : w->c->nreasons;

	if (grow(w, w->n + nr) != 0)
		return 1;
	for (int i = 0; i < nr; i++) {
		struct tly_row_pc_samples *x;

		if (!s->stall[i])
			continue;
		x = &w->rows[w->n++];
		memset(x, 0, sizeof *x);
		x->rank = w->p->rank;
		x->device = w->c->st.device;
		snprintf(x->kernel, sizeof x->kernel, "%s", s->kernel ? s->kernel : "");
		snprintf(x->function, sizeof x->function, "%s", s->function ? s->function : "");
		x->cubin_crc = (int64_t)s->cubin_crc;
		x->pc_offset = (int64_t)s->pc_offset;
		x->correlation_id = s->correlation_id;
		snprintf(x->file, sizeof x->file, "%s", s->file ? s->file : "");
		x->line = (int32_t)s->line;
		snprintf(x->stall, sizeof x->stall, "%s", w->c->reason[i]);
		x->not_issued = w->c->not_issued[i];
		x->samples = (int64_t)s->stall[i];
	}
	return 0;
}

/* The rank whose process id is pid (ranks of this job), else -1. */
static int32_t rank_of(void *comm_ptr, long pid)
{
	int64_t me = (int64_t)getpid(), *all;
	int n = 1;
	int32_t r = -1;

	if (!comm_ptr)
		return pid == (long)me ? 0 : -1;
	PMPI_Comm_size(*(MPI_Comm *)comm_ptr, &n);
	all = calloc((size_t)n, sizeof *all);
	if (!all)
		return -1;
	PMPI_Allgather(&me, 1, MPI_INT64_T, all, 1, MPI_INT64_T, *(MPI_Comm *)comm_ptr);
	for (int i = 0; i < n && pid; i++)
		if (all[i] == pid)
			r = i;
	free(all);
	return r;
}

static void status_row(struct tly_row_pcsamp_status *x, struct tly_rt_proc *p, const struct tly_pcs_ctx *c,
		       int32_t owner, long owner_pid)
{
	memset(x, 0, sizeof *x);
	x->rank = p->rank;
	x->device = c ? c->st.device : -1;
	x->sampling = c != NULL;
	x->owner_rank = x->sampling ? p->rank : owner;
	x->owner_pid = x->sampling ? (int64_t)getpid() : owner_pid;
	if (c) {
		snprintf(x->mode, sizeof x->mode, "%s",
			 c->st.mode == TALLY_GPU_PCSAMP_SERIALIZED ? "serialized" : "continuous");
		x->period = c->st.period;
		x->total_samples = (int64_t)c->st.total_samples;
		x->record_samples = (int64_t)c->st.record_samples;
		x->dropped_samples = (int64_t)c->st.dropped_samples;
		x->nonuser_samples = (int64_t)c->st.nonuser_samples;
		x->hw_buffer_full = (int64_t)c->st.hw_buffer_full;
		x->records = (int64_t)c->st.num_records;
	}
	snprintf(x->status, sizeof x->status, "%s", *tly_pcs_rt_status() || c ? tly_pcs_rt_status() :
		 tly_pcs_rt_on() ? "no CUDA context was sampled on this rank" : "PC sampling is off on this rank");
}

/* Collective over comm_ptr when sampling is on anywhere: every rank of a
 * final write calls it.  A partial file gets no PC rows: the harvest
 * drives CUPTI, which must not run in signal and abort paths. */
static void pcsamp_rows(const struct tly_out_ctx *c, struct tly_rows *r)
{
	void *comm_ptr = c->comm;
	struct tly_rt_proc *p = c->p;
	int partial = c->partial;
	const struct tly_pcs_ctx *cs = NULL;
	struct walk w = { .p = p };
	struct tly_row_pcsamp_status *st;
	int nc = 0, ns, any = tly_pcs_rt_on();
	long opid = tly_pcs_rt_owner_pid();
	int32_t orank;

	if (comm_ptr)
		PMPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, *(MPI_Comm *)comm_ptr);
	if (!any)
		return;
	orank = rank_of(comm_ptr, opid);
	if (!partial && tly_pcs_rt_on())
		nc = tly_pcs_rt_harvest(&cs);
	for (int i = 0; i < nc; i++) {
		w.c = &cs[i];
		if (cs[i].nreasons)
			tally_gpu_pcsampling_read(cs[i].ctx, on_sample, &w);
	}
	ns = nc > 0 ? nc : 1;
	st = calloc((size_t)ns, sizeof *st);
	for (int i = 0; st && i < ns; i++)
		status_row(&st[i], p, nc > 0 ? &cs[i] : NULL, orank, opid);
	if (!w.rows)
		w.rows = calloc(1, sizeof *w.rows);   /* a buffer even for no rows */
	r->t[TLY_T_pc_samples] = w.rows;
	r->n[TLY_T_pc_samples] = w.rows ? w.n : 0;
	r->t[TLY_T_pcsamp_status] = st;
	r->n[TLY_T_pcsamp_status] = st ? ns : 0;
}

const struct tly_out_module tly_out_mod_pcsamp = {
	.name = "pcsamp",
	.tables = (const enum tly_table[]){ TLY_T_pc_samples, TLY_T_pcsamp_status, TLY_NTABLES },
	.rows = pcsamp_rows,
};
