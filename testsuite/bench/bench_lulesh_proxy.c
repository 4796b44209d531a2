/* bench_lulesh_proxy.c - an OpenMP+MPI program of LULESH's shape for
 * bench_startup.sh: per iteration a dozen OpenMP parallel loops over the
 * rank's elements (streams of a few arithmetic operations, as LULESH's
 * kernels), a halo exchange with the neighbours along a line of ranks
 * (MPI_Isend/MPI_Irecv, MPI_PROC_NULL at the ends) and an MPI_Allreduce of
 * the time step.  argv[1]: iterations (default 100); argv[2]: elements per
 * rank (default 60000). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define KERNELS 12
#define HALO 1024

static void kernel(int k, double *a, const double *b, int n)
{
#pragma omp parallel for schedule(static)
	for (int i = 0; i < n; i++)
		a[i] = a[i] * 0.999 + b[(i + k) % n] * 0.001 + (double)k * 1e-9;
}

static void halo(double *a, int n, int rank, int size)
{
	int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
	static double in_l[HALO], in_r[HALO];
	MPI_Request q[4];

	MPI_Irecv(in_l, HALO, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &q[0]);
	MPI_Irecv(in_r, HALO, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &q[1]);
	MPI_Isend(a + n - HALO, HALO, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &q[2]);
	MPI_Isend(a, HALO, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &q[3]);
	MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
	if (left != MPI_PROC_NULL)
		a[0] += in_l[HALO - 1] * 1e-12;
	if (right != MPI_PROC_NULL)
		a[n - 1] += in_r[0] * 1e-12;
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 100, n = argc > 2 ? atoi(argv[2]) : 60000;
	int rank, size;
	double *a, *b, dt = 1, sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (n < 2 * HALO)
		n = 2 * HALO;
	a = malloc(sizeof *a * (size_t)n);
	b = malloc(sizeof *b * (size_t)n);
	if (!a || !b)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int i = 0; i < n; i++)
		a[i] = b[i] = (double)(i % 97);
	for (int it = 0; it < iters; it++) {
		for (int k = 0; k < KERNELS; k++)
			kernel(k, k % 2 ? a : b, k % 2 ? b : a, n);
		halo(a, n, rank, size);
		dt = a[it % n] * 1e-6 + 1;
		MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
		sum += dt;
	}
	if (rank == 0)
		printf("proxy: %d iterations, %d elements per rank, sum %.6f\n", iters, n, sum);
	free(a);
	free(b);
	MPI_Finalize();
	return 0;
}
