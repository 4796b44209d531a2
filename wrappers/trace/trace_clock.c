/*
 * trace_clock.c - each rank's clock offset to rank 0's, measured when the
 * trace opens and when it closes (the archive's ClockOffset definitions;
 * readers interpolate between the two, as OTF2 defines).  Rank 0 pings
 * each rank in turn; the reply carries the rank's clock, taken as read at
 * the middle of the round trip, and the shortest of a few round trips
 * wins (the least queueing).  On one node every rank reads the same
 * CLOCK_MONOTONIC and the offsets come out within the round trip.
 */
#include "trace/trace.h"

#include <mpi.h>

#define ROUNDS 5

static int64_t ping(MPI_Comm comm, int peer)
{
	int64_t best_rtt = INT64_MAX, off = 0;

	for (int k = 0; k < ROUNDS; k++) {
		int64_t t1 = tly_rt_now(), tr, t2;

		PMPI_Send(&t1, 1, MPI_INT64_T, peer, 0, comm);
		PMPI_Recv(&tr, 1, MPI_INT64_T, peer, 0, comm, MPI_STATUS_IGNORE);
		t2 = tly_rt_now();
		if (t2 - t1 < best_rtt) {
			best_rtt = t2 - t1;
			off = t1 + (t2 - t1) / 2 - tr;
		}
	}
	return off;
}

int64_t tly_trace_clock_offset(void *comm_ptr)
{
	MPI_Comm comm;
	int rank, n;
	int64_t off = 0;

	if (!comm_ptr)
		return 0;
	comm = *(MPI_Comm *)comm_ptr;
	PMPI_Comm_rank(comm, &rank);
	PMPI_Comm_size(comm, &n);
	for (int r = 1; r < n; r++) {
		int64_t tmp, mine;

		if (rank == 0) {
			tmp = ping(comm, r);
			PMPI_Send(&tmp, 1, MPI_INT64_T, r, 1, comm);
		} else if (rank == r) {
			for (int k = 0; k < ROUNDS; k++) {
				PMPI_Recv(&tmp, 1, MPI_INT64_T, 0, 0, comm, MPI_STATUS_IGNORE);
				mine = tly_rt_now();
				PMPI_Send(&mine, 1, MPI_INT64_T, 0, 0, comm);
			}
			PMPI_Recv(&off, 1, MPI_INT64_T, 0, 1, comm, MPI_STATUS_IGNORE);
		}
	}
	return off;
}
