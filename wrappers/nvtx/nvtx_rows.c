/*
 * nvtx_rows.c - the writer module "nvtx": rows of the fixed NVTX tables of
 * schema.def (domains, names, marks, start/end ranges, schemas) and one
 * compound dataset per registered payload schema under /nvtx/payloads,
 * its HDF5 type built from the schema's row type (nvtx/nvtx_layout.c).
 */
#include "output/out_module.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtx/nvtx.h"

static int thread_pos(struct tly_rt_proc *p, const struct tly_rt_thread *t)
{
	int k = 0;

	for (struct tly_rt_thread *x = p->threads; x; x = x->next, k++)
		if (x == t)
			return k;
	return -1;
}

static int32_t region_of(struct tly_rt_proc *p, int32_t **gid, const struct tly_rt_thread *t, int32_t node)
{
	int k = thread_pos(p, t);

	return gid && k >= 0 && gid[k] && node >= 0 && node < t->nnodes ? gid[k][node] : -1;
}

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
				.region = region_of(p, gid, t->rt, s->node), .domain = s->domain,
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

/* ---- payload tables ------------------------------------------------------ */
static hid_t h5_int(uint32_t size, int sign)
{
	switch (size) {
	case 1: return H5Tcopy(sign ? H5T_NATIVE_INT8 : H5T_NATIVE_UINT8);
	case 2: return H5Tcopy(sign ? H5T_NATIVE_INT16 : H5T_NATIVE_UINT16);
	case 4: return H5Tcopy(sign ? H5T_NATIVE_INT32 : H5T_NATIVE_UINT32);
	default: return H5Tcopy(sign ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64);
	}
}

static hid_t h5_enum(const struct tly_nv_ct *ct)
{
	hid_t base = h5_int(ct->size, 0), t = H5Tenum_create(base);

	H5Tclose(base);

	for (size_t i = 0; t >= 0 && i < ct->en->n; i++) {
		uint64_t v = ct->en->values[i];
		unsigned char b[8];

		memcpy(b, &v, ct->size);     /* little-endian: low bytes */
		if (H5Tenum_insert(t, ct->en->names[i], b) < 0) {
			H5Tclose(t);
			return h5_int(ct->size, 0);
		}
	}
	return t;
}

static hid_t h5_type(const struct tly_nv_ct *ct)
{
	hid_t t, e;
	hsize_t n;

	switch (ct->kind) {
	case TLY_NV_INT: return h5_int(ct->size, 1);
	case TLY_NV_UINT: return h5_int(ct->size, 0);
	case TLY_NV_FLOAT: return H5Tcopy(ct->size == 4 ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE);
	case TLY_NV_ENUM: return h5_enum(ct);
	case TLY_NV_STR:
		t = H5Tcopy(H5T_C_S1);
		H5Tset_size(t, H5T_VARIABLE);
		H5Tset_cset(t, H5T_CSET_UTF8);
		return t;
	case TLY_NV_OPAQUE:
		n = ct->size;
		return H5Tarray_create2(H5T_NATIVE_UINT8, 1, &n);
	case TLY_NV_ARRAY: case TLY_NV_VLEN:
		e = h5_type(ct->elem);
		n = ct->n;
		t = ct->kind == TLY_NV_ARRAY ? H5Tarray_create2(e, 1, &n) : H5Tvlen_create(e);
		H5Tclose(e);
		return t;
	default:
		t = H5Tcreate(H5T_COMPOUND, ct->size);
		for (uint32_t i = 0; i < ct->n; i++) {
			e = h5_type(ct->f[i].t);
			H5Tinsert(t, ct->f[i].name, ct->f[i].off, e);
			H5Tclose(e);
		}
		return t;
	}
}

static int has_vlen(const struct tly_nv_ct *ct)
{
	int v = ct->kind == TLY_NV_STR || ct->kind == TLY_NV_VLEN;

	for (uint32_t i = 0; ct->kind == TLY_NV_COMP && i < ct->n; i++)
		v |= has_vlen(ct->f[i].t);
	return v || (ct->kind == TLY_NV_ARRAY && has_vlen(ct->elem));
}

/* This rank's rows of schema s, contiguous, with rank and job region ids. */
static void *gather(struct tly_rt_proc *p, int32_t **gid, const struct tly_nv_schema *s, int64_t *n)
{
	size_t sz = s->row->size, k = 0;
	unsigned char *buf;

	*n = schema_rows(s);
	buf = calloc((size_t)(*n ? *n : 1), sz);
	if (!buf) {
		*n = 0;
		return NULL;
	}
	for (struct tly_nv_thread *t = tly_nv_threads(); t; t = t->next)
		for (size_t i = 0; i < t->nrows; i++) {
			struct tly_nv_hdr *h;

			if (t->rows[i].s != s)
				continue;
			h = (struct tly_nv_hdr *)(void *)(buf + k++ * sz);
			memcpy(h, t->rows[i].row, sz);
			h->rank = p->rank;
			h->region = region_of(p, gid, t->rows[i].rt, h->region);
		}
	return buf;
}

static int write_one(hid_t grp, MPI_Comm *comm, int rank, hid_t dxpl, const struct tly_nv_schema *s,
		     const void *rows, int64_t n)
{
	int64_t off = 0, total = n;
	hsize_t dtot, doff, dn = (hsize_t)(n ? n : 1), dcnt = (hsize_t)n;
	hid_t mt = h5_type(s->row), ft = H5Tcopy(mt), fs, ms, ds;
	herr_t rc = 0;

	if (comm) {
		PMPI_Allreduce(&n, &total, 1, MPI_INT64_T, MPI_SUM, *comm);
		PMPI_Exscan(&n, &off, 1, MPI_INT64_T, MPI_SUM, *comm);
		if (rank == 0)
			off = 0;
	}
	H5Tpack(ft);
	dtot = (hsize_t)total;
	doff = (hsize_t)off;
	fs = H5Screate_simple(1, &dtot, NULL);
	ds = H5Dcreate2(grp, s->name, ft, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (ds >= 0 && total > 0) {
		ms = H5Screate_simple(1, &dn, NULL);
		if (n) {
			H5Sselect_hyperslab(fs, H5S_SELECT_SET, &doff, NULL, &dcnt, NULL);
		} else {
			H5Sselect_none(fs);
			H5Sselect_none(ms);
		}
		rc = H5Dwrite(ds, mt, ms, fs, dxpl, rows);
		H5Sclose(ms);
	}
	if (ds >= 0)
		H5Dclose(ds);
	H5Sclose(fs);
	H5Tclose(mt);
	H5Tclose(ft);
	return ds < 0 || rc < 0 ? -1 : 0;
}

/* With MPI, the tables are rank 0's schemas that every rank registered
 * with the same row type; HDF5 1.10 cannot write variable-length data in
 * parallel, so such tables are written only by serial (or partial) files. */
static const struct tly_nv_schema *agreed(MPI_Comm *comm, int rank, int i, int *ok)
{
	char name[256] = "";
	const struct tly_nv_schema *s = NULL;
	int n = tly_nv_nschemas(), mine;

	if (rank == 0 && i < n)
		snprintf(name, sizeof name, "%s", tly_nv_schema_at(i)->name);
	PMPI_Bcast(name, (int)sizeof name, MPI_CHAR, 0, *comm);
	for (int k = 0; k < n && !s; k++)
		if (!strcmp(tly_nv_schema_at(k)->name, name))
			s = tly_nv_schema_at(k);
	mine = s && !has_vlen(s->row);
	PMPI_Allreduce(&mine, ok, 1, MPI_INT, MPI_MIN, *comm);
	return s;
}

static int nvtx_write_payloads(const struct tly_out_ctx *c, hid_t file, hid_t dxpl)
{
	struct tly_rt_proc *p = c->p;
	int32_t **gid = c->gid;
	MPI_Comm *comm = c->comm;
	int rank = comm ? p->rank : 0, n = tly_nv_nschemas(), rc = 0, skipped = 0;
	hid_t g1 = H5Gcreate2(file, "nvtx", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	hid_t g2 = g1 >= 0 ? H5Gcreate2(g1, "payloads", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;

	if (comm)
		PMPI_Bcast(&n, 1, MPI_INT, 0, *comm);
	for (int i = 0; g2 >= 0 && i < n; i++) {
		int ok = 1;
		const struct tly_nv_schema *s = comm ? agreed(comm, rank, i, &ok) : tly_nv_schema_at(i);
		int64_t rows = 0;
		void *buf;

		if (!ok || !s) {
			skipped++;
			continue;
		}
		buf = gather(p, gid, s, &rows);
		rc |= write_one(g2, comm, rank, dxpl, s, buf, rows);
		free(buf);      /* strings and sequences stay in the threads' arenas */
	}
	if (skipped && rank == 0)
		tly_rt_log(1, "NVTX: %d payload table(s) not written (schema not registered on every rank, or "
			   "variable-length fields, which parallel HDF5 1.10 cannot write)", skipped);
	if (g2 >= 0)
		H5Gclose(g2);
	if (g1 >= 0)
		H5Gclose(g1);
	return g2 >= 0 ? rc : -1;
}

const struct tly_out_module tly_out_mod_nvtx = {
	.name = "nvtx",
	.tables = (const enum tly_table[]){ TLY_T_nvtx_domains, TLY_T_nvtx_names, TLY_T_nvtx_marks,
					    TLY_T_nvtx_ranges, TLY_T_nvtx_schemas, TLY_NTABLES },
	.rows = nvtx_rows,
	.write = nvtx_write_payloads,
};
