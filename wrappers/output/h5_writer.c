/*
 * h5_writer.c - one HDF5 file per job.  With a communicator every rank
 * writes its own rows of each table at the offset given by a prefix sum
 * (MPI_Exscan), collectively through the MPI-IO driver; without one
 * (serial programs, per-rank partial files) the same schema goes through
 * the default driver.
 */
#include "output/h5_schema.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/unify.h"

struct wctx {
	MPI_Comm *comm;       /* NULL: serial */
	int rank;
	hid_t file, dxpl;
	hid_t mem[TLY_NTABLES], ftype[TLY_NTABLES];
};

static int64_t reduce_i64(struct wctx *w, int64_t v, MPI_Op op)
{
	int64_t r = v;

	if (w->comm)
		PMPI_Allreduce(&v, &r, 1, MPI_INT64_T, op, *w->comm);
	return r;
}

static void attr_write(struct wctx *w, const char *name, hid_t type, const void *v, const char *doc)
{
	hid_t sp = H5Screate(H5S_SCALAR);
	hid_t a = H5Acreate2(w->file, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);

	(void)doc;
	H5Awrite(a, type, v);
	H5Aclose(a);
	H5Sclose(sp);
}

static void attr_str(struct wctx *w, const char *name, const char *s, size_t n)
{
	char buf[512];
	hid_t t = H5Tcopy(H5T_C_S1);

	snprintf(buf, sizeof buf, "%s", s);
	H5Tset_size(t, n);
	attr_write(w, name, t, buf, NULL);
	H5Tclose(t);
}

static void doc_attr(hid_t obj, const char *doc)
{
	hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR), a;

	H5Tset_size(t, strlen(doc) + 1);
	a = H5Acreate2(obj, "doc", t, sp, H5P_DEFAULT, H5P_DEFAULT);
	H5Awrite(a, t, doc);
	H5Aclose(a);
	H5Sclose(sp);
	H5Tclose(t);
}

static int write_table(struct wctx *w, int tid, const void *rows, int64_t n)
{
	int64_t off = 0, total = reduce_i64(w, n, MPI_SUM);
	hsize_t dtot = (hsize_t)total, dn = (hsize_t)(n ? n : 1), doff, dcnt = (hsize_t)n;
	hid_t fs, ms, ds;
	herr_t rc = 0;

	if (w->comm) {
		PMPI_Exscan(&n, &off, 1, MPI_INT64_T, MPI_SUM, *w->comm);
		if (w->rank == 0)
			off = 0;
	}
	doff = (hsize_t)off;
	fs = H5Screate_simple(1, &dtot, NULL);
	ds = H5Dcreate2(w->file, tly_h5_table_names[tid], w->ftype[tid], fs, H5P_DEFAULT, H5P_DEFAULT,
			H5P_DEFAULT);
	if (ds < 0) {
		H5Sclose(fs);
		return -1;
	}
	doc_attr(ds, tly_h5_table_docs[tid]);
	if (total > 0) {
		ms = H5Screate_simple(1, &dn, NULL);
		if (n) {
			H5Sselect_hyperslab(fs, H5S_SELECT_SET, &doff, NULL, &dcnt, NULL);
		} else {
			H5Sselect_none(fs);
			H5Sselect_none(ms);
		}
		rc = H5Dwrite(ds, w->mem[tid], ms, fs, w->dxpl, rows);
		H5Sclose(ms);
	}
	H5Dclose(ds);
	H5Sclose(fs);
	return rc < 0 ? -1 : 0;
}

static hid_t open_file(struct wctx *w, const char *path)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), f;

	if (w->comm)
		H5Pset_fapl_mpio(fapl, *w->comm, MPI_INFO_NULL);
	f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	H5Pclose(fapl);
	return f;
}

int tly_rows_build(struct tly_rt_proc *p, struct tly_names *all, int32_t **gid, int rank0,
		   int partial, struct tly_rows *r);
void tly_rows_free(struct tly_rows *r);
/* NVTX tables and payload datasets (output/h5_nvtx.c). */
void tly_nvtx_rows(struct tly_rt_proc *p, int32_t **gid, struct tly_rows *r);
/* Multi-pass tables (output/h5_passes.c). */
void tly_pass_rows(struct tly_rt_proc *p, struct tly_rows *r);
/* GPU kernel table (output/h5_gpu.c). */
void tly_gpu_rows(struct tly_rt_proc *p, struct tly_rows *r, int partial);
/* GPU PC sampling tables (output/h5_pcsamp.c); collective. */
void tly_pcsamp_rows(void *comm_ptr, struct tly_rt_proc *p, struct tly_rows *r, int partial);
int tly_nvtx_write_payloads(hid_t file, void *comm_ptr, hid_t dxpl, struct tly_rt_proc *p, int32_t **gid);

static void write_attrs(struct wctx *w, struct tly_rt_proc *p, int partial, const char *why)
{
	/* a partial file carries the job size too, so readers can list missing ranks */
	int32_t v = TLY_SCHEMA_VERSION, nr = p->nranks > 0 ? p->nranks : 1, pr = partial ? p->rank : -1;
	int32_t part = partial;
	int64_t st = -reduce_i64(w, -p->start_wall, MPI_MAX), et = reduce_i64(w, p->end_wall, MPI_MAX);
	char cmd[512];

	snprintf(cmd, sizeof cmd, "%s", p->cmdline);
	if (w->comm)
		PMPI_Bcast(cmd, (int)sizeof cmd, MPI_CHAR, 0, *w->comm);
	attr_write(w, "schema_version", H5T_NATIVE_INT32, &v, NULL);
	attr_str(w, "tally_version", TALLY_VERSION_STRING, 32);
	attr_str(w, "program", p->exe, 256);
	attr_str(w, "command", cmd, 512);
	attr_write(w, "start_time", H5T_NATIVE_INT64, &st, NULL);
	attr_write(w, "end_time", H5T_NATIVE_INT64, &et, NULL);
	attr_write(w, "nranks", H5T_NATIVE_INT32, &nr, NULL);
	attr_write(w, "partial", H5T_NATIVE_INT32, &part, NULL);
	attr_write(w, "partial_rank", H5T_NATIVE_INT32, &pr, NULL);
	attr_str(w, "partial_reason", why, 64);
}

static int write_all(struct wctx *w, struct tly_rt_proc *p, struct tly_rows *rows, int partial,
		     const char *why, int64_t t0)
{
	int rc = 0;
	int64_t us;

	write_attrs(w, p, partial, why);
	for (int i = 0; i < TLY_NTABLES; i++)
		rc |= write_table(w, i, rows->t[i], rows->n[i]);
	us = reduce_i64(w, (tly_rt_now() - t0) / 1000, MPI_MAX);
	attr_write(w, "write_seconds", H5T_NATIVE_INT64, &us, NULL);
	return rc;
}

/* Rename the complete file into place (one rank does it for the job). */
static void finish_file(const char *tmp, const char *path, int rc, int created)
{
	if (!created)
		return;
	if (rc == 0 && rename(tmp, path) == 0)
		return;
	if (rc == 0)
		tly_rt_log(1, "cannot rename %s to %s; the measurement stays in %s", tmp, path, tmp);
	else
		tly_rt_log(1, "writing %s failed; incomplete data left in %s", path, tmp);
}

/* Initialise HDF5 early: its atexit clean-up then runs after Tally's
 * exit handler, which may still write a file. */
void tly_out_init(void)
{
	H5open();
}

int tly_out_write(void *comm_ptr, const char *path, int partial)
{
	struct tly_rt_proc *p = tly_rt_proc();
	struct wctx w = { .comm = comm_ptr, .rank = comm_ptr ? p->rank : 0 };
	struct tly_names all = { 0 };
	struct tly_rows rows = { 0 };
	int32_t **gid = NULL;
	int64_t t0 = tly_rt_now();
	int rc = -1, ok;
	char tmp[1200];

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	tly_unify(comm_ptr, p, &all, &gid);
	tly_rows_build(p, &all, gid, w.rank == 0, partial, &rows);
	tly_pass_rows(p, &rows);
#ifdef TALLY_HAVE_GPU_RT
	tly_gpu_rows(p, &rows, partial);
	tly_pcsamp_rows(comm_ptr, p, &rows, partial);
#endif
#ifdef TALLY_HAVE_NVTX
	tly_nvtx_rows(p, gid, &rows);
#endif
	tly_h5_types(w.mem, w.ftype, p->nev);
	/* written under a temporary name and renamed when complete: a reader
	 * never sees a half-written file, a writer killed mid-way leaves only
	 * the .tmp file */
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	w.file = open_file(&w, tmp);
	ok = w.file >= 0;
	if (w.comm)
		ok = (int)reduce_i64(&w, ok, MPI_MIN);
	if (ok) {
		w.dxpl = H5Pcreate(H5P_DATASET_XFER);
		if (w.comm)
			H5Pset_dxpl_mpio(w.dxpl, H5FD_MPIO_COLLECTIVE);
		rc = write_all(&w, p, &rows, partial, partial ? p->why : "", t0);
#ifdef TALLY_HAVE_NVTX
		rc |= tly_nvtx_write_payloads(w.file, comm_ptr, w.dxpl, p, gid);
#endif
		if (w.comm)
			rc = (int)-reduce_i64(&w, -(int64_t)rc, MPI_MAX);
		H5Pclose(w.dxpl);
	} else {
		tly_rt_log(1, "cannot create %s; no measurement file written", path);
	}
	if (w.file >= 0 && H5Fclose(w.file) < 0)
		rc = -1;
	if (w.rank == 0)
		finish_file(tmp, path, rc, w.file >= 0);
	for (int i = 0; i < TLY_NTABLES; i++) {
		H5Tclose(w.mem[i]);
		H5Tclose(w.ftype[i]);
	}
	for (int k = 0; gid && k < p->nthreads; k++)
		free(gid[k]);
	free(gid);
	tly_rows_free(&rows);
	tly_names_free(&all);
	return rc;
}
