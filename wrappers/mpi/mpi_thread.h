/*
 * mpi_thread.h - the MPI part's data of a thread (struct tly_mpi_thread,
 * mpi_support.h) in its slot of the record: TLY_RT_PART_mpi, numbered by
 * the build (generated/rt_part_ids.h, runtime/rt_parts.h).  Apart from
 * mpi_support.h so the generated wrappers need no build numbering.
 */
#ifndef TALLY_MPI_THREAD_H
#define TALLY_MPI_THREAD_H

#include "mpi/mpi_support.h"
#include "rt_part_ids.h"

static inline struct tly_mpi_thread *tly_mpi_thread(const struct tly_rt_thread *t)
{
	return t->slot[TLY_RT_PART_mpi];
}

#endif /* TALLY_MPI_THREAD_H */
