/* pmpi_app.c - an MPI program with MPI_PROC_NULL peers (tests mpi_pmpi_*).
 *
 * Per rank r of N, in this order (check_proc_null.py knows the numbers):
 *   MPI_Sendrecv, MPI_Send, MPI_Isend, MPI_Irecv, MPI_Recv and
 *   MPI_Sendrecv_replace with MPI_PROC_NULL as the peer (80 doubles each),
 *   then STEPS halo exchanges along a line of ranks where the ends have
 *   MPI_PROC_NULL as their outer neighbour: two MPI_Sendrecv of 100 doubles
 *   (to the right from the left, to the left from the right) and an
 *   MPI_Isend/MPI_Irecv pair of 50 doubles in each direction, MPI_Waitall;
 *   then one MPI_Allreduce and one MPI_Barrier.
 * A peer of MPI_PROC_NULL carries no bytes: rank r sends and receives
 * 800 B per real neighbour and step by MPI_Sendrecv, 400 B by MPI_Isend/Irecv.
 */
#include <mpi.h>
#include <stdio.h>

#define STEPS 3

static void proc_null_calls(void)
{
	double a[80] = { 0 }, b[80];
	MPI_Request q[2];
	MPI_Status st;

	MPI_Sendrecv(a, 80, MPI_DOUBLE, MPI_PROC_NULL, 1, b, 80, MPI_DOUBLE, MPI_PROC_NULL, 1,
		     MPI_COMM_WORLD, &st);
	MPI_Send(a, 80, MPI_DOUBLE, MPI_PROC_NULL, 2, MPI_COMM_WORLD);
	MPI_Isend(a, 80, MPI_DOUBLE, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &q[0]);
	MPI_Irecv(b, 80, MPI_DOUBLE, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &q[1]);
	MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
	MPI_Recv(b, 80, MPI_DOUBLE, MPI_PROC_NULL, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Sendrecv_replace(a, 80, MPI_DOUBLE, MPI_PROC_NULL, 5, MPI_PROC_NULL, 5, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
}

static void halo(int rank, int n)
{
	int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < n - 1 ? rank + 1 : MPI_PROC_NULL;
	double out[100] = { 0 }, in[100], hl[50], hr[50];
	MPI_Request q[4];

	for (int s = 0; s < STEPS; s++) {
		MPI_Sendrecv(out, 100, MPI_DOUBLE, right, 10, in, 100, MPI_DOUBLE, left, 10, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		MPI_Sendrecv(out, 100, MPI_DOUBLE, left, 11, in, 100, MPI_DOUBLE, right, 11, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		MPI_Irecv(hl, 50, MPI_DOUBLE, left, 12, MPI_COMM_WORLD, &q[0]);
		MPI_Irecv(hr, 50, MPI_DOUBLE, right, 13, MPI_COMM_WORLD, &q[1]);
		MPI_Isend(out, 50, MPI_DOUBLE, right, 12, MPI_COMM_WORLD, &q[2]);
		MPI_Isend(out + 50, 50, MPI_DOUBLE, left, 13, MPI_COMM_WORLD, &q[3]);
		MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
	}
}

int main(int argc, char **argv)
{
	int rank, n;
	double x = 1, sum = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	proc_null_calls();
	halo(rank, n);
	MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	if (sum != n)
		fprintf(stderr, "pmpi_app: allreduce gave %g, want %d\n", sum, n);
	MPI_Finalize();
	return sum == n ? 0 : 1;
}
