/* bench_runtime_mpi.c - 0-byte ping-pong between ranks 0 and 1, run under
 * tally-run (default settings: MPI calls recorded, MPI regions carry time
 * only, counters not read at MPI calls).  The same process times the
 * uninstrumented path (PMPI_Send/PMPI_Recv, which the wrappers do not
 * intercept) and the measured one (MPI_Send/MPI_Recv), in alternating
 * blocks of ITERS round trips; the overhead per call is the median over the
 * block pairs of the difference, divided by the 4 calls on a round trip's
 * critical path (a paired median: this VM's scheduling noise is larger than
 * the effect). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ITERS 1000
#define BLOCKS 301

typedef int (*send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*recv_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);

static double pingpong(int rank, send_fn s, recv_fn r)
{
	char b = 0;
	double t0;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (int i = 0; i < ITERS; i++) {
		if (rank == 0) {
			s(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
			r(&b, 0, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			r(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			s(&b, 0, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
		}
	}
	return (MPI_Wtime() - t0) / ITERS * 1e9;   /* ns per round trip */
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rank;
	static double d[BLOCKS], p[BLOCKS], m[BLOCKS];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	pingpong(rank, PMPI_Send, PMPI_Recv);      /* warm-up */
	pingpong(rank, MPI_Send, MPI_Recv);
	for (int b = 0; b < BLOCKS; b++) {
		p[b] = pingpong(rank, PMPI_Send, PMPI_Recv);
		m[b] = pingpong(rank, MPI_Send, MPI_Recv);
		d[b] = m[b] - p[b];
	}
	qsort(d, BLOCKS, sizeof *d, cmp);
	qsort(p, BLOCKS, sizeof *p, cmp);
	qsort(m, BLOCKS, sizeof *m, cmp);
	if (rank == 0)
		printf("0-byte ping-pong round trip (median of %d blocks): uninstrumented %.0f ns, measured "
		       "%.0f ns; overhead per MPI call %.1f ns (paired median; quartiles %.1f .. %.1f; "
		       "target <= 50 ns)\n", BLOCKS, p[BLOCKS / 2], m[BLOCKS / 2], d[BLOCKS / 2] / 4,
		       d[BLOCKS / 4] / 4, d[3 * BLOCKS / 4] / 4);
	MPI_Finalize();
	return 0;
}
