/*
 * mpi_rows.c - the writer module "mpi": per rank and MPI function the
 * calls, time, bytes and message-size histogram (table mpi), and the call
 * sites (table mpi_sites, mpi_sites.c).
 */
#include "mpi/mpi_support.h"
#include "mpi/mpi_thread.h"

#include <stdio.h>
#include <string.h>

#include "output/out_module.h"

static void mpi_rows(struct tly_rt_proc *p, struct tly_rows *r)
{
	struct tly_row_mpi *m = tly_rows_alloc(r, TLY_T_mpi, tly_mpi_nfuncs, sizeof *m);
	int64_t n = 0;

	for (int f = 0; m && f < tly_mpi_nfuncs; f++) {
		struct tly_row_mpi *row = &m[n];

		memset(row, 0, sizeof *row);
		for (struct tly_rt_thread *t = p->threads; t; t = t->next) {
			const struct tly_mpi_stat *s = &tly_mpi_thread(t)->stat[f];

			row->calls += s->calls;
			row->time_ns += s->time_ns;
			row->bytes_sent += s->sent;
			row->bytes_recv += s->recv;
			for (int b = 0; b < TLY_RT_HIST; b++)
				row->hist[b] += s->hist[b];
		}
		if (!row->calls)
			continue;
		row->rank = p->rank;
		snprintf(row->function, sizeof row->function, "%s", tly_mpi_names[f]);
		n++;
	}
	r->n[TLY_T_mpi] = m ? n : 0;
}

static void mpi_module_rows(const struct tly_out_ctx *c, struct tly_rows *r)
{
	mpi_rows(c->p, r);
	tly_mpi_site_rows(c->p, r);
}

const struct tly_out_module tly_out_mod_mpi = {
	.name = "mpi",
	.tables = (const enum tly_table[]){ TLY_T_mpi, TLY_T_mpi_sites, TLY_NTABLES },
	.rows = mpi_module_rows,
};
