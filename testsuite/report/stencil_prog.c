/*
 * stencil_prog.c - the stencil shape of issue 52: MPI + OpenMP (run with
 * OMP_NUM_THREADS=2), a user region 'compute' around the parallel loop and
 * 'halo' around the exchange, which spins SPIN_NS of its own CPU time and
 * then swaps MSG doubles with the next rank in MPI_Sendrecv (32 MiB: the
 * copy takes CPU time inside the MPI call on any machine).  A first
 * parallel region before the steps, outside any user region, starts the
 * worker, so it idles through every 'halo' (and the first exchange, out of
 * any region, sets up MPI's path for large messages).
 */
#include <mpi.h>
#include <stdio.h>

#include "tally.h"
#include "th_clock.h"

#define N 400000
#define STEPS 10
#define SPIN_NS 20000000LL
#define MSG (4 << 20)

static double a[N], b[N], out[MSG], in[MSG];

int main(int argc, char **argv)
{
	int rank, size, provided;
	double sum = 0.0;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
#pragma omp parallel
	for (int i = 0; i < MSG; i++)
		if (i % 2 == 0)
			out[i] = in[i] = 0.0;
	for (int i = 0; i < N; i++)
		a[i] = i % 7;
	MPI_Sendrecv(out, MSG, MPI_DOUBLE, (rank + 1) % size, 0, in, MSG, MPI_DOUBLE, (rank + size - 1) % size, 0,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (int step = 0; step < STEPS; step++) {
		tally_region_begin("halo");
		th_spin_cpu_ns(SPIN_NS);
		out[step] = a[1];
		MPI_Sendrecv(out, MSG, MPI_DOUBLE, (rank + 1) % size, 0, in, MSG, MPI_DOUBLE,
			     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		a[0] = in[step];
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
