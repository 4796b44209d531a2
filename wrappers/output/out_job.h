/*
 * out_job.h - the file of an MPI job of several ranks, prepared in the
 * preload library: the job's unified names, this rank's rows and, in a
 * small job, every rank's rows gathered to rank 0 (output/out_gather.h).
 * Only the ranks that write HDF5 load the writer library: rank 0 alone
 * in a gathered job, every rank in a parallel write (output/out_job.c,
 * output/h5_lib.h).
 */
#ifndef TALLY_OUT_JOB_H
#define TALLY_OUT_JOB_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "output/names.h"
#include "output/out_gather.h"
#include "output/out_module.h"

struct tly_out_job {
	struct tly_out_ctx ctx;      /* the producers' context (names points to `names`) */
	struct tly_names names;      /* the job's unified regions */
	int32_t **gid;               /* [thread][node] -> region id */
	struct tly_rows rows;        /* this rank's */
	int gathered;                /* 1: rank 0 writes `all` alone, through HDF5's POSIX driver */
	struct tly_rows all;         /* rank 0 of a gathered job: every rank's, in rank order */
	struct tly_gather_job gjob;  /* the job's figures for a gathered file */
	int64_t t0;                  /* this rank's clock when its write began */
};

/* The job file, collectively over *comm: 0 or -errno, the same on every
 * rank; path (rank 0's name, as on every rank) receives the name used. */
int tly_out_write_job(MPI_Comm *comm, char *path, size_t len);

#endif
