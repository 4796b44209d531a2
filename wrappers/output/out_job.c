/*
 * out_job.c - the file of an MPI job of several ranks (output/out_job.h).
 *
 * Loading HDF5 and the ~40 libraries it needs costs a process 10-20 ms
 * of CPU; in a small job only rank 0 writes, so the others never load it:
 * the names are unified, the rows built and gathered here, in the preload
 * library, and rank 0 alone loads the writer library to write them.  A
 * larger job writes in parallel: every rank loads the writer library,
 * and all say whether they could before any collective HDF5 call (one
 * rank without it would leave the others waiting in a collective).
 * Tally's own MPI calls go through PMPI_ names.
 */
#include "output/out_job.h"

#include <errno.h>
#include <stdlib.h>

#include "output/h5_lib.h"
#include "output/out_host.h"
#include "output/out_rows.h"
#include "output/unify.h"

/* Every module's write() hook (those need no HDF5: the trace's archive),
 * collective; a gathered file's datasets are rank 0's alone. */
static int modules_write(const struct tly_out_ctx *c)
{
	int rc = 0;

	for (int k = 0; tly_out_modules[k] && rc == 0; k++)
		if (tly_out_modules[k]->write)
			rc = tly_out_modules[k]->write(c, -1, -1);
	return rc;
}

/* Rank 0 writes; the others wait for its result asleep, leaving it the CPU. */
static int write_gathered(MPI_Comm comm, struct tly_out_job *j, int rank, char *path, size_t len)
{
	MPI_Request req;
	int rc = modules_write(&j->ctx) == 0 ? 0 : -EIO, e;

	if (rank == 0) {
		const struct tly_h5_lib *w = tly_h5_lib_load();

		e = w ? w->write_job(j, path, len) : -ELIBACC;
		rc = e ? e : rc;
	}
	PMPI_Iallreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm, &req);
	tly_out_gather_wait(&req);
	return rc;
}

static int write_parallel(MPI_Comm comm, struct tly_out_job *j, char *path, size_t len)
{
	const struct tly_h5_lib *w = tly_h5_lib_load();
	int ok = w != NULL;

	PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm);
	return ok ? w->write_job(j, path, len) : -ELIBACC;
}

int tly_out_write_job(MPI_Comm *comm, char *path, size_t len)
{
	struct tly_rt_proc *p = tly_out_proc();
	struct tly_out_job j = { .t0 = tly_out_now() };
	int rank = p->rank, rc;   /* in *comm: MPI_COMM_WORLD's duplicate */

	errno = 0;
	tly_unify(comm, p, &j.names, &j.gid);
	j.ctx = (struct tly_out_ctx){ .p = p, .comm = comm, .names = &j.names, .gid = j.gid, .rank0 = rank == 0 };
	tly_out_rows_build(&j.ctx, &j.rows);
	j.gathered = tly_out_gather(*comm, p, tly_out_parts_pending(), &j.rows, j.t0, &j.all, &j.gjob);
	rc = j.gathered ? write_gathered(*comm, &j, rank, path, len) : write_parallel(*comm, &j, path, len);
	for (int k = 0; j.gid && k < p->nthreads; k++)
		free(j.gid[k]);
	free(j.gid);
	tly_out_rows_free(&j.all);
	tly_out_rows_free(&j.rows);
	tly_names_free(&j.names);
	return rc;
}
