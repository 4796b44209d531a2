/*
 * nvtx_h5.c - the NVTX payload tables: one compound dataset per registered
 * payload schema under /nvtx/payloads, its HDF5 type built from the
 * schema's row type (nvtx/nvtx_layout.c).  Part of the HDF5 writer
 * library (libtally-h5.so, output/h5_lib.h): it reads the NVTX tool's
 * threads and schemas through the host table (output/h5_host.c), and is
 * called after the module "nvtx" of the writer's module list.
 */
#include "output/h5_lib.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvtx/nvtx.h"
#include "output/out_host.h"
#include "output/unify.h"
#include "output/h5_par.h"

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

static int64_t schema_rows(const struct tly_nv_h5_src *nv, const struct tly_nv_schema *s)
{
	int64_t n = 0;

	for (struct tly_nv_thread *t = nv->threads(); t; t = t->next)
		for (size_t i = 0; i < t->nrows; i++)
			n += t->rows[i].s == s;
	return n;
}

/* This rank's rows of schema s, contiguous, with rank and job region ids. */
static void *gather(const struct tly_nv_h5_src *nv, struct tly_rt_proc *p, int32_t **gid,
		    const struct tly_nv_schema *s, int64_t *n)
{
	size_t sz = s->row->size, k = 0;
	unsigned char *buf;

	*n = schema_rows(nv, s);
	buf = calloc((size_t)(*n ? *n : 1), sz);
	if (!buf) {
		*n = 0;
		return NULL;
	}
	for (struct tly_nv_thread *t = nv->threads(); t; t = t->next)
		for (size_t i = 0; i < t->nrows; i++) {
			struct tly_nv_hdr *h;

			if (t->rows[i].s != s)
				continue;
			h = (struct tly_nv_hdr *)(void *)(buf + k++ * sz);
			memcpy(h, t->rows[i].row, sz);
			h->rank = p->rank;
			h->region = tly_unify_region_of(p, gid, t->rows[i].rt, h->region);
		}
	return buf;
}

static int write_one(hid_t grp, MPI_Comm *comm, int rank, hid_t dxpl, const struct tly_nv_schema *s,
		     const void *rows, int64_t n)
{
	int64_t off = 0, total = n;
	hsize_t dtot;
	hid_t mt = h5_type(s->row), ft = H5Tcopy(mt), fs, ds;
	herr_t rc = 0;

	if (comm) {
		PMPI_Allreduce(&n, &total, 1, MPI_INT64_T, MPI_SUM, *comm);
		PMPI_Exscan(&n, &off, 1, MPI_INT64_T, MPI_SUM, *comm);
		if (rank == 0)
			off = 0;
	}
	H5Tpack(ft);
	dtot = (hsize_t)total;
	fs = H5Screate_simple(1, &dtot, NULL);
	ds = H5Dcreate2(grp, s->name, ft, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	if (ds >= 0 && total > 0)
		rc = tly_h5_par_write_rows(ds, mt, fs, dxpl, off, n, rows);
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
static const struct tly_nv_schema *agreed(const struct tly_nv_h5_src *nv, MPI_Comm *comm, int rank, int i,
					  int *ok)
{
	char name[256] = "";
	const struct tly_nv_schema *s = NULL;
	int n = nv->nschemas(), mine;

	if (rank == 0 && i < n)
		snprintf(name, sizeof name, "%s", nv->schema_at(i)->name);
	PMPI_Bcast(name, (int)sizeof name, MPI_CHAR, 0, *comm);
	for (int k = 0; k < n && !s; k++)
		if (!strcmp(nv->schema_at(k)->name, name))
			s = nv->schema_at(k);
	mine = s && !has_vlen(s->row);
	PMPI_Allreduce(&mine, ok, 1, MPI_INT, MPI_MIN, *comm);
	return s;
}

static int nvtx_write(const struct tly_out_ctx *c, const void *src, hid_t file, hid_t dxpl)
{
	const struct tly_nv_h5_src *nv = src;
	struct tly_rt_proc *p = c->p;
	int32_t **gid = c->gid;
	MPI_Comm *comm = c->comm;
	int rank = comm ? p->rank : 0, n = nv->nschemas(), rc = 0, skipped = 0;
	hid_t g1 = H5Gcreate2(file, "nvtx", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
	hid_t g2 = g1 >= 0 ? H5Gcreate2(g1, "payloads", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT) : -1;

	if (comm)
		PMPI_Bcast(&n, 1, MPI_INT, 0, *comm);
	for (int i = 0; g2 >= 0 && i < n; i++) {
		int ok = 1;
		const struct tly_nv_schema *s = comm ? agreed(nv, comm, rank, i, &ok) : nv->schema_at(i);
		int64_t rows = 0;
		void *buf;

		if (!ok || !s) {
			skipped++;
			continue;
		}
		buf = gather(nv, p, gid, s, &rows);
		rc |= write_one(g2, comm, rank, dxpl, s, buf, rows);
		free(buf);      /* strings and sequences stay in the threads' arenas */
	}
	if (skipped && rank == 0)
		tly_out_log(1, "NVTX: %d payload table(s) not written (schema not registered on every rank, or "
			    "variable-length fields, which parallel HDF5 1.10 cannot write)", skipped);
	if (g2 >= 0)
		H5Gclose(g2);
	if (g1 >= 0)
		H5Gclose(g1);
	return g2 >= 0 ? rc : -1;
}

const struct tly_h5_part tly_h5_part_nvtx = {
	.module = "nvtx",
	.write = nvtx_write,
};
