/*
 * mpi_omp_sum.c - a small MPI + OpenMP program to try the runtime on:
 *
 *   mpicc -fopenmp -o mpi_omp_sum mpi_omp_sum.c
 *   mpirun -np 2 tally-run -- ./mpi_omp_sum
 *   tally-report tally-*.h5
 *
 * Each rank sums a series in an OpenMP parallel loop, then the ranks add
 * their sums with MPI_Allreduce.  Prints the total and the thread count.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	const long n = 20000000;
	double local = 0.0, total = 0.0;
	int rank, size, threads = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int rep = 0; rep < 3; rep++) {
#pragma omp parallel reduction(+ : local)
		{
#pragma omp single
			threads = omp_get_num_threads();
#pragma omp for
			for (long i = rank; i < n; i += size)
				local += 1.0 / ((double)i + 1.0);
		}
		MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	if (rank == 0)
		printf("ranks %d threads %d sum %.6f\n", size, threads, total);
	MPI_Finalize();
	return 0;
}
