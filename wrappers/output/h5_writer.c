/*
 * h5_writer.c - one HDF5 file per job.  With a communicator every rank
 * writes its own rows of each table at the offset given by a prefix sum
 * (MPI_Exscan), collectively through the MPI-IO driver; without one
 * (serial programs, per-rank partial files) the same schema goes through
 * the default driver.  Part of the writer library libtally-h5.so
 * (output/h5_lib.h): the runtime's functions it calls come through the
 * host table (output/h5_host.c).
 */
#include "output/h5_schema.h"

#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/out_job.h"
#include "output/h5_par.h"
#include "output/out_file.h"
#include "output/out_host.h"
#include "output/out_stage.h"
#include "output/out_rows.h"
#include "output/output.h"
#include "output/unify.h"

struct wctx {
	MPI_Comm *comm;       /* NULL: serial */
	const struct tly_gather_job *job;   /* rank 0 writing a gathered job file alone */
	int rank;
	hid_t file, dxpl, dcpl;
	int64_t off[TLY_NTABLES], total[TLY_NTABLES];   /* this rank's row offsets, job totals */
	hid_t mem[TLY_NTABLES], ftype[TLY_NTABLES];
	int nindep;           /* tables HDF5 wrote by independent MPI-IO */
	uint32_t why;         /* its H5D_MPIO_* causes */
	int err;              /* errno at this rank's first failure */
};

static int64_t reduce_i64(struct wctx *w, int64_t v, MPI_Op op)
{
	int64_t r = v;

	if (w->comm)
		PMPI_Allreduce(&v, &r, 1, MPI_INT64_T, op, *w->comm);
	return r;
}

/* Every rank's verdict on a phase: 1 only when it worked everywhere.  A
 * collective HDF5 call after a phase that failed on one rank hangs the
 * job (ranks end up in different collectives), so each phase ends here. */
static int agree(struct wctx *w, int ok)
{
	if (!ok && !w->err)
		w->err = errno ? errno : EIO;
	return (int)-reduce_i64(w, -(int64_t)(ok != 0), MPI_MAX);
}

/* The reason of a failed phase on every rank (the largest errno seen);
 * called by every rank after agree() said no. */
static int failure(struct wctx *w)
{
	int e = (int)reduce_i64(w, w->err ? w->err : EIO, MPI_MAX);

	return e > 0 ? e : EIO;
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
	char buf[8192];
	hid_t t = H5Tcopy(H5T_C_S1);

	snprintf(buf, sizeof buf, "%s", s);
	H5Tset_size(t, n < sizeof buf ? n : sizeof buf);
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
	int64_t total = w->total[tid];
	hsize_t dtot = (hsize_t)total;
	hid_t fs, ds;
	herr_t rc = 0;
	uint32_t why;

	fs = H5Screate_simple(1, &dtot, NULL);
	ds = H5Dcreate2(w->file, tly_h5_table_names[tid], w->ftype[tid], fs, H5P_DEFAULT, w->dcpl,
			H5P_DEFAULT);
	if (!agree(w, ds >= 0)) {
		if (ds >= 0)
			H5Dclose(ds);
		H5Sclose(fs);
		return -1;
	}
	doc_attr(ds, tly_h5_table_docs[tid]);
	if (total > 0)
		rc = tly_h5_par_write_rows(ds, w->mem[tid], fs, w->dxpl, w->off[tid], n, rows);
	if (total > 0 && rc >= 0 && w->comm && (why = tly_h5_par_not_collective(w->dxpl))) {
		w->nindep++;
		w->why |= why;
	}
	H5Dclose(ds);
	H5Sclose(fs);
	return agree(w, rc >= 0) ? 0 : -1;
}

/* Bytes the tables will take (all ranks), with room for metadata: the
 * space is reserved before HDF5 starts, so a full disk is a clean
 * "no room" on every rank instead of a failure inside a collective. */
static long long need_bytes(struct wctx *w, struct tly_rows *rows)
{
	int64_t b = 0;

	for (int i = 0; i < TLY_NTABLES; i++)
		b += rows->n[i] * (int64_t)H5Tget_size(w->ftype[i]);
	b = reduce_i64(w, b, MPI_SUM);
	return (long long)(b + b / 4 + (256 << 10));
}

/* Rank 0 makes the private directory and the file in it
 * (output/out_stage.c); every rank opens that file through its own
 * descriptor of the directory.  0, or -errno on every rank. */
static int open_file(struct wctx *w, const char *path, long long need, struct tly_out_stage *st)
{
	struct { int rc; unsigned long long ino; char priv[256]; } made = { 0 };
	hid_t fapl;
	int rc = 0;

	if (w->rank == 0) {
		made.rc = tly_out_stage_create(st, path, need);
		made.ino = st->ino;
		snprintf(made.priv, sizeof made.priv, "%s", st->priv);
	}
	if (w->comm)
		PMPI_Bcast(&made, (int)sizeof made, MPI_BYTE, 0, *w->comm);
	if (made.rc)
		return made.rc;
	/* the other ranks open it by name: when someone renamed it away,
	 * rank 0 reads its new name from its descriptor and they try again */
	for (int tries = 0; w->comm && tries < 4; tries++) {
		rc = w->rank ? tly_out_stage_join(st, path, made.priv, made.ino) : 0;
		PMPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, *w->comm);
		if (!rc)
			break;
		if (w->rank == 0 && tly_out_stage_current(st) == 0)
			snprintf(made.priv, sizeof made.priv, "%s", st->priv);
		PMPI_Bcast(made.priv, (int)sizeof made.priv, MPI_CHAR, 0, *w->comm);
	}
	if (rc) {
		if (w->rank == 0)
			tly_out_stage_discard(st);
		else
			tly_out_stage_close(st);
		return rc;
	}
	fapl = H5Pcreate(H5P_FILE_ACCESS);
	if (w->comm)
		tly_h5_par_fapl(fapl, *w->comm);
	w->file = H5Fcreate(st->h5, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
	H5Pclose(fapl);
	if (w->rank == 0 && w->file >= 0 && tly_out_stage_check(st) != 0)
		rc = -EXDEV;   /* replaced under us: never write through it */
	else if (w->file < 0)
		rc = -EIO;
	if (w->comm)
		PMPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, *w->comm);
	if (rc && w->file >= 0)
		H5Fclose(w->file);
	if (rc && w->rank == 0)
		tly_out_stage_discard(st);
	else if (rc)
		tly_out_stage_close(st);
	return rc;
}

static void write_attrs(struct wctx *w, struct tly_rt_proc *p, int partial, const char *why)
{
	/* a partial file carries the job size too, so readers can list missing ranks */
	int32_t v = TLY_SCHEMA_VERSION, nr = p->nranks > 0 ? p->nranks : 1, pr = partial ? p->rank : -1;
	int32_t part = partial;
	int64_t st = -reduce_i64(w, -p->start_wall, MPI_MAX), et = reduce_i64(w, p->end_wall, MPI_MAX);
	char cmd[512];
	static _Thread_local char given[sizeof p->settings];   /* 8 KiB off the writer's stack */

	if (w->job) {
		st = w->job->start_wall;
		et = w->job->end_wall;
	}

	snprintf(cmd, sizeof cmd, "%s", p->cmdline);
	snprintf(given, sizeof given, "%s", p->settings);
	if (w->comm) {
		PMPI_Bcast(cmd, (int)sizeof cmd, MPI_CHAR, 0, *w->comm);
		PMPI_Bcast(given, (int)sizeof given, MPI_CHAR, 0, *w->comm);   /* rank 0's, as the command */
	}
	attr_write(w, "schema_version", H5T_NATIVE_INT32, &v, NULL);
	attr_str(w, "tally_version", TALLY_VERSION_STRING, 32);
	attr_str(w, "program", p->exe, 256);
	attr_str(w, "command", cmd, 512);
	attr_str(w, "settings", given, sizeof given);
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
	double secs;

	write_attrs(w, p, partial, why);
	tly_h5_par_plan(w->comm, rows->n, TLY_NTABLES, w->off, w->total);
	for (int i = 0; i < TLY_NTABLES && rc == 0; i++)
		rc = write_table(w, i, rows->t[i], rows->n[i]);
	if (w->nindep && w->rank == 0)
		tly_out_log(2, "%d table(s) written by independent, not collective, MPI-IO (HDF5's "
			    "H5Pget_mpio_no_collective_cause 0x%x)", w->nindep, (unsigned)w->why);
	/* a gathered file: the slowest rank's time up to the gather, then rank 0's */
	if (w->job)
		secs = (double)(w->job->before_ns + tly_out_now() - w->job->at) / 1e9;
	else
		secs = (double)reduce_i64(w, tly_out_now() - t0, MPI_MAX) / 1e9;
	attr_write(w, "write_seconds", H5T_NATIVE_DOUBLE, &secs, NULL);
	return rc;
}

/* Renames the complete file into place without replacing another (one
 * rank does it for the job); `path` receives the name used.  A failed
 * write is removed, so its space is free for the partial files.  A
 * complete file that cannot be renamed stays where the one line it says
 * names (`*told`: the caller says nothing more). */
static int finish_file(struct tly_out_stage *st, char *path, size_t len, int rc, int *told)
{
	char final[1200], where[1600];
	int e;

	if (rc) {
		tly_out_stage_discard(st);
		return rc;
	}
	e = tly_out_stage_publish(st, path, tly_out_proc()->opt.output_replace, final, sizeof final);
	if (e) {
		tly_out_log(1, "cannot rename the complete file to %s (%s); the measurement stays in %s", final,
			    strerror(-e), tly_out_stage_where(st, where, sizeof where));
		tly_out_stage_close(st);
		*told = 1;
		return e;
	}
	if (strcmp(final, path))
		tly_out_log(1, "%s exists; writing %s instead (TALLY_OUTPUT_REPLACE=1 replaces it)", path, final);
	snprintf(path, len, "%s", final);
	return 0;
}

/* HDF5's initialisation, for programs without MPI, at load (the runtime
 * calls it then: rt_state.c).  In an MPI program HDF5 is initialised at
 * the first write instead: its start calls MPI_Initialized and
 * MPI_Finalized through their public names, which a PMPI tool in front of
 * Tally would count as the program's; after MPI_Finalize's write, Tally's
 * exit handler writes nothing more.  In a program without MPI a first
 * H5open on the signal writer's thread, with the program's threads
 * running, ended in HDF5 errors, heap corruption or a segmentation fault
 * in about one SIGTERM run of three (safety_signals); never with it done
 * at load. */
void tly_out_init(void)
{
	H5open();
}

/* The file of `rows` at `path`, collectively on w->comm (or by this
 * process alone).  c: the context of the producers' datasets
 * (tly_out_modules_write), m: that of the modules' write() hooks, NULL
 * when the caller runs them.  0 or -errno. */
static int write_file(struct wctx *w, const struct tly_out_ctx *c, const struct tly_out_ctx *m,
		      struct tly_rows *rows, char *path, size_t len, int partial, int64_t t0)
{
	struct tly_rt_proc *p = c->p;
	struct tly_out_stage st;
	int rc = -1, e, quiet = w->comm || w->job;   /* a job file's failure is told by the caller, once */
	int told = 0;

	/* written under a unique temporary name and renamed when complete: a
	 * reader never sees a half-written file, a writer killed mid-way
	 * leaves only its private directory <name>.XXXXXX.tmp/ */
	e = open_file(w, path, need_bytes(w, rows), &st);
	if (e) {
		if (!quiet)
			tly_out_log(1, "cannot create %s (%s); no measurement file written", path, tly_out_why(e));
		return e;
	}
	w->dxpl = H5Pcreate(H5P_DATASET_XFER);
	w->dcpl = tly_h5_par_dcpl();
	if (w->comm)
		H5Pset_dxpl_mpio(w->dxpl, H5FD_MPIO_COLLECTIVE);
	rc = write_all(w, p, rows, partial, partial ? p->why : "", t0);
	if (rc == 0)
		rc = tly_out_modules_write(m, c, w->file, w->dxpl);
	rc = agree(w, rc == 0) ? 0 : -1;
	errno = 0;
	H5Pclose(w->dxpl);
	H5Pclose(w->dcpl);
	rc = agree(w, H5Fclose(w->file) >= 0 && rc == 0) ? 0 : -failure(w);
	errno = 0;
	if (w->rank == 0)
		rc = finish_file(&st, path, len, rc, &told);
	else
		tly_out_stage_close(&st);
	if (rc && !quiet && !told)
		tly_out_log(1, "writing %s failed (%s); no measurement file written", path, tly_out_why(rc));
	return rc;
}

/* HDF5's set-up and the tables' types around write_file. */
static int write_typed(struct wctx *w, const struct tly_out_ctx *c, const struct tly_out_ctx *m,
		       struct tly_rows *rows, char *path, size_t len, int partial, int64_t t0)
{
	int rc;

	H5open();
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	errno = 0;
	tly_h5_types(w->mem, w->ftype, c->p->nev);
	rc = write_file(w, c, m, rows, path, len, partial, t0);
	for (int i = 0; i < TLY_NTABLES; i++) {
		H5Tclose(w->mem[i]);
		H5Tclose(w->ftype[i]);
	}
	return rc;
}

/* The file of an MPI job prepared by output/out_job.c: a gathered job's
 * rows written by rank 0 alone, as a serial file with the job's
 * attributes (the modules' write() hooks ran on every rank there), or
 * every rank's own rows in parallel. */
int tly_h5_write_job(struct tly_out_job *j, char *path, size_t len)
{
	struct tly_out_ctx solo = j->ctx;
	struct wctx w = { .rank = j->ctx.p->rank, .file = -1 };

	if (!j->gathered) {
		w.comm = j->ctx.comm;
		return write_typed(&w, &j->ctx, &j->ctx, &j->rows, path, len, 0, j->t0);
	}
	w.job = &j->gjob;
	solo.comm = NULL;
	return write_typed(&w, &solo, NULL, &j->all, path, len, 0, j->t0);
}

/* This process's file alone: its names, its rows. */
int tly_out_write(char *path, size_t len, int partial)
{
	struct tly_rt_proc *p = tly_out_proc();
	struct wctx w = { .file = -1 };
	struct tly_names all = { 0 };
	struct tly_rows rows = { 0 };
	struct tly_out_ctx ctx;
	int32_t **gid = NULL;
	int64_t t0 = tly_out_now();
	int rc;

	errno = 0;
	tly_unify(NULL, p, &all, &gid);
	ctx = (struct tly_out_ctx){ .p = p, .names = &all, .gid = gid, .rank0 = 1, .partial = partial };
	tly_out_rows_build(&ctx, &rows);
	rc = write_typed(&w, &ctx, &ctx, &rows, path, len, partial, t0);
	for (int k = 0; gid && k < p->nthreads; k++)
		free(gid[k]);
	free(gid);
	tly_out_rows_free(&rows);
	tly_names_free(&all);
	return rc;
}
