/*
 * out_gather.h - a small job's rows to rank 0, which writes the job file
 * alone through HDF5's POSIX driver (output/out_gather.c).
 */
#ifndef TALLY_OUT_GATHER_H
#define TALLY_OUT_GATHER_H

#include <mpi.h>
#include <stdint.h>

#include "output/h5_schema.h"
#include "output/out_records.h"

/* Beyond this many bytes of rows in the whole job the file is written in
 * parallel whatever TALLY_OUTPUT_GATHER says: rank 0 holds every row
 * twice while it repacks them, and MPI_Gatherv counts in int. */
#define TLY_GATHER_MAX_BYTES (256LL << 20)

/* What rank 0 needs of the job besides the rows, for the file's
 * attributes (the parallel writer reduces the same over the ranks). */
struct tly_gather_job {
	int64_t start_wall, end_wall; /* earliest start, latest end (UNIX s) */
	int64_t before_ns;            /* longest time a rank spent in the writer before the gather */
	int64_t at;                   /* rank 0's clock when the gather began */
};

/* Does this write go through rank 0 alone?  Collective over comm: every
 * rank gets the same answer.  Yes when the job has at most
 * TALLY_OUTPUT_GATHER ranks (rank 0's setting), at most
 * TLY_GATHER_MAX_BYTES of rows, no rank has data for a producer's own
 * datasets (`parts`: this rank's count of them, tly_out_parts_pending; those
 * are written in parallel) and rank 0 could allocate room for every row.  Then rank 0 gets every rank's rows
 * of each table in `all`, in rank order (the order of the parallel
 * write's offsets), and the job's figures in `job`; the other ranks get
 * nothing in `all`. */
int tly_out_gather(MPI_Comm comm, struct tly_rt_proc *p, int parts, const struct tly_rows *mine, int64_t t0,
		   struct tly_rows *all, struct tly_gather_job *job);

/* Waits for a nonblocking collective, sleeping between tests: a rank
 * waiting for rank 0's write leaves it the CPU (MPI's blocking waits
 * spin, and small jobs often share cores). */
void tly_out_gather_wait(MPI_Request *req);

/* How many producers' parts in the writer library have data of this
 * process to write (struct tly_out_module's parts_pending). */
int tly_out_parts_pending(void);

#endif
