/*
 * stencil_prog.c - the stencil shape of issue 52: MPI + OpenMP (run with
 * OMP_NUM_THREADS=2), a user region 'compute' around the parallel loop and
 * 'halo' around the exchange, which does some work of its own and then
 * waits in MPI_Sendrecv for the other rank (rank 1 spins SKEW_NS longer
 * before its exchange, so rank 0's MPI calls take CPU time: Open MPI polls).
 * While the master is in 'halo' the worker thread idles.
 */
#include <mpi.h>
#include <stdio.h>

#include "tally.h"
#include "th_clock.h"

#define N 400000
#define STEPS 10
#define SKEW_NS 20000000LL

static double a[N], b[N];

int main(int argc, char **argv)
{
	int rank, size, provided;
	double sum = 0.0;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 0; i < N; i++)
		a[i] = i % 7;
	for (int step = 0; step < STEPS; step++) {
		tally_region_begin("halo");
		th_spin_cpu_ns(rank == 1 ? 2 * SKEW_NS : SKEW_NS);
		MPI_Sendrecv(&a[1], 1, MPI_DOUBLE, (rank + 1) % size, 0, &a[0], 1, MPI_DOUBLE,
			     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		tally_region_end("halo");
		tally_region_begin("compute");
#pragma omp parallel for
		for (int i = 1; i < N - 1; i++)
			for (int k = 0; k < 20; k++)
				b[i] += (a[i - 1] + a[i] + a[i + 1]) / (3.0 + k);
		tally_region_end("compute");
	}
	for (int i = 0; i < N; i++)
		sum += b[i];
	if (rank == 0)
		printf("sum %g\n", sum);
	MPI_Finalize();
	return 0;
}
