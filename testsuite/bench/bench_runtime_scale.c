/* bench_runtime_scale.c - output size: every thread of every rank enters
 * NREG distinct regions VISITS times each (bench_runtime_scale.sh checks the
 * file and reports write_seconds for 2, 4, 8 and 16 ranks). */
#include <mpi.h>
#include <stdio.h>
#include "tally.h"

#define NREG 2000
#define VISITS 2

int main(int argc, char **argv)
{
	int provided;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
#pragma omp parallel
	{
		char name[32];

		for (int v = 0; v < VISITS; v++)
			for (int r = 0; r < NREG; r++) {
				snprintf(name, sizeof name, "r%04d", r);
				tally_region_begin(name);
				tally_region_end(name);
			}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
