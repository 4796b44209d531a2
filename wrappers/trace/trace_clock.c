/*
 * trace_clock.c - each rank's clock offset to rank 0's, measured when the
 * trace opens and when it closes (the archive's ClockOffset definitions;
 * readers interpolate between the two, as OTF2 defines).  Rank 0 pings
 * each rank in turn; the reply carries the rank's clock, taken as read at
 * the middle of the round trip, and the shortest of a few round trips
 * wins (the least queueing).  Ranks on rank 0's machine -- the same
 * kernel boot, /proc/sys/kernel/random/boot_id -- read the same
 * CLOCK_MONOTONIC: their offset is 0 exactly, not a measurement whose
 * error (half a round trip, 0.1 ms on a loaded node) would put receives
 * before their sends.
 */
#include "trace/trace.h"

#include <fcntl.h>
#include <mpi.h>
#include <string.h>
#include <unistd.h>

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

/* 1 when this rank runs under rank 0's kernel boot (collective). */
static int same_boot(MPI_Comm comm)
{
	char mine[64] = "", root[64];
	int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
	ssize_t k = fd >= 0 ? read(fd, mine, sizeof mine - 1) : -1;

	if (fd >= 0)
		close(fd);
	mine[k > 0 ? k : 0] = '\0';
	memcpy(root, mine, sizeof root);
	PMPI_Bcast(root, (int)sizeof root, MPI_CHAR, 0, comm);
	return k > 0 && !strcmp(mine, root);
}

int64_t tly_trace_clock_offset(void *comm_ptr)
{
	MPI_Comm comm;
	int rank, n, same;
	int64_t off = 0;

	if (!comm_ptr)
		return 0;
	comm = *(MPI_Comm *)comm_ptr;
	PMPI_Comm_rank(comm, &rank);
	PMPI_Comm_size(comm, &n);
	same = same_boot(comm);
	for (int r = 1; r < n; r++) {
		int64_t tmp, mine;
		int theirs = same;

		/* rank r says first whether it shares rank 0's clock */
		if (rank == r)
			PMPI_Send(&same, 1, MPI_INT, 0, 2, comm);
		else if (rank == 0)
			PMPI_Recv(&theirs, 1, MPI_INT, r, 2, comm, MPI_STATUS_IGNORE);
		if ((rank != 0 && rank != r) || theirs)
			continue;
		if (rank == 0) {
			tmp = ping(comm, r);
			PMPI_Send(&tmp, 1, MPI_INT64_T, r, 1, comm);
		} else {
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
