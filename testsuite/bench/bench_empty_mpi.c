/* bench_empty_mpi.c - an MPI program that does nothing (bench_startup.sh):
 * what a tool adds to it is the tool's fixed cost. */
#include <mpi.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	MPI_Finalize();
	return 0;
}
