/*
 * nvtx_rows.c - the writer module "nvtx": rows of the fixed NVTX tables of
 * schema.def (domains, names, marks, start/end ranges, schemas) and one
 * compound dataset per registered payload schema under /nvtx/payloads,
 * its HDF5 type built from the schema's row type (nvtx/nvtx_layout.c).
 * The payload tables are written by the HDF5 writer library
 * (nvtx/nvtx_h5.c in libtally-h5.so, output/h5_lib.h).
 */
#include "output/out_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtx/nvtx.h"
#include "output/unify.h"

static void domain_rows(struct tly_rt_proc *p, struct tly_rows *r)
{
	int n = tly_nv_ndomains();
	struct tly_row_nvtx_domains *d = tly_rows_alloc(r, TLY_T_nvtx_domains, n, sizeof *d);

	for (int i = 0; d && i < n; i++) {
		d[i].rank = p->rank;
		d[i].id = i;
		d[i].enabled = tly_nv_domain_enabled(i ? (nvtxDomainHandle_t)(uintptr_t)i : NULL);
		snprintf(d[i].name, sizeof d[i].name, "%s", tly_nv_domain_name(i));
	}
	int dm, kind;
	uint64_t id;
	const char *nm;
	size_t nn = tly_nv_names(-1, &dm, &kind, &id, &nm);
	struct tly_row_nvtx_names *x = tly_rows_alloc(r, TLY_T_nvtx_names, (int64_t)nn, sizeof *x);

	for (size_t i = 0; x && i < nn; i++) {
		tly_nv_names((int)i, &dm, &kind, &id, &nm);
		x[i] = (struct tly_row_nvtx_names){ .rank = p->rank, .domain = dm, .kind = kind, .id = (int64_t)id };
		snprintf(x[i].name, sizeof x[i].name, "%s", nm);
	}
}

static void mark_rows(struct tly_rt_proc *p, int32_t **gid, struct tly_rows *r)
{
	int64_t n = 0, k = 0;
	struct tly_row_nvtx_marks *m;

	for (struct tly_nv_thread *t = tly_nv_threads(); t; t = t->next)
		n += (int64_t)t->nmarks;
	m = tly_rows_alloc(r, TLY_T_nvtx_marks, n, sizeof *m);
	for (struct tly_nv_thread *t = tly_nv_threads(); m && t; t = t->next)
		for (size_t i = 0; i < t->nmarks; i++, k++) {
			const struct tly_nv_mark *s = &t->marks[i];

			m[k] = (struct tly_row_nvtx_marks){ .rank = p->rank, .thread = t->rt->index,
				.region = tly_unify_region_of(p, gid, t->rt, s->node), .domain = s->domain,
				.category = (int32_t)s->category, .time_ns = s->time_ns };
			snprintf(m[k].message, sizeof m[k].message, "%s", s->message);
		}
}

static int64_t schema_rows(const struct tly_nv_schema *s)
{
	int64_t n = 0;

	for (struct tly_nv_thread *t = tly_nv_threads(); t; t = t->next)
		for (size_t i = 0; i < t->nrows; i++)
			n += t->rows[i].s == s;
	return n;
}

static void range_schema_rows(struct tly_rt_proc *p, struct tly_rows *r)
{
	const struct tly_nv_range *g;
	size_t n;
	int ns = tly_nv_nschemas();
	struct tly_row_nvtx_ranges *o;
	struct tly_row_nvtx_schemas *sc = tly_rows_alloc(r, TLY_T_nvtx_schemas, ns, sizeof *sc);

	for (int i = 0; sc && i < ns; i++) {
		const struct tly_nv_schema *s = tly_nv_schema_at(i);

		sc[i] = (struct tly_row_nvtx_schemas){ .rank = p->rank, .id = (int64_t)s->id, .domain = s->domain,
			.type = (int32_t)s->type, .entries = (int32_t)s->n, .rows = schema_rows(s) };
		snprintf(sc[i].table, sizeof sc[i].table, "%s", s->name);
	}
	tly_nv_lock_ranges(1);
	n = tly_nv_ranges(&g);
	o = tly_rows_alloc(r, TLY_T_nvtx_ranges, (int64_t)n, sizeof *o);
	for (size_t i = 0; o && i < n; i++) {
		o[i] = (struct tly_row_nvtx_ranges){ .rank = p->rank, .id = (int64_t)g[i].id, .domain = g[i].domain,
			.category = (int32_t)g[i].category, .start_thread = g[i].start_thread,
			.end_thread = g[i].end_thread, .start_ns = g[i].start_ns, .end_ns = g[i].end_ns };
		snprintf(o[i].message, sizeof o[i].message, "%s", g[i].message);
	}
	tly_nv_lock_ranges(0);
}

static void nvtx_rows(const struct tly_out_ctx *c, struct tly_rows *r)
{
	struct tly_rt_proc *p = c->p;
	int32_t **gid = c->gid;

	domain_rows(p, r);
	mark_rows(p, gid, r);
	range_schema_rows(p, r);
}

/* Registered payload schemas, even without rows, make datasets in the
 * writer library's part (nvtx/nvtx_h5.c). */
static int nvtx_parts_pending(void)
{
	return tly_nv_nschemas() > 0;
}

static const struct tly_nv_h5_src h5_src = {
	.threads = tly_nv_threads,
	.nschemas = tly_nv_nschemas,
	.schema_at = tly_nv_schema_at,
};

const struct tly_out_module tly_out_mod_nvtx = {
	.name = "nvtx",
	.tables = (const enum tly_table[]){ TLY_T_nvtx_domains, TLY_T_nvtx_names, TLY_T_nvtx_marks,
					    TLY_T_nvtx_ranges, TLY_T_nvtx_schemas, TLY_NTABLES },
	.rows = nvtx_rows,
	.h5_src = &h5_src,
	.parts_pending = nvtx_parts_pending,
};
