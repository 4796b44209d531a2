/*
 * report_prog.c - a small MPI program with known work for the report
 * tests: nested regions, point-to-point and collective calls, and a rank
 * dependent amount of work so imbalance is visible.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "tally.h"
#include "th_clock.h"

int main(int argc, char **argv)
{
	int rank, size;
	double v, sum = 0.0;
	char buf[4096] = { 0 };

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int step = 0; step < 5; step++) {
		tally_region_begin("step");
		tally_region_begin("compute");
		v = th_spin_rounds(2000000L * (rank + 1));
		tally_region_end("compute");
		tally_region_begin("exchange");
		if (size > 1 && rank == 0)
			MPI_Send(buf, (int)sizeof buf, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
		else if (rank == 1)
			MPI_Recv(buf, (int)sizeof buf, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		tally_region_end("exchange");
		tally_region_end("step");
	}
	if (rank == 0)
		printf("sum %g\n", sum);
	MPI_Finalize();
	return 0;
}
