/*
 * scale_app.c - a tiny MPI program for many oversubscribed ranks whose
 * region visits and MPI calls differ per rank; each rank writes what it
 * did to truth.<rank> ("region NAME VISITS", "mpi FUNCTION CALLS") so the
 * job file can be checked row by row (check_scale_file.py).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "tally.h"

#define PHASES 6

int main(int argc, char **argv)
{
	int rank, size, sendrecv = 0, allreduce = 0;
	int visits[PHASES];
	char own[64], name[32];
	double v = 1, sum;
	FILE *f;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int k = 0; k < PHASES; k++) {
		visits[k] = (rank + k) % 3 + 1;
		snprintf(name, sizeof name, "phase_%d", k);
		for (int i = 0; i < visits[k]; i++) {
			tally_region_begin(name);
			if (k == 0 && i == 0) {   /* once per rank: every rank pairs up */
				MPI_Sendrecv(&v, 1, MPI_DOUBLE, (rank + 1) % size, 0, &sum, 1, MPI_DOUBLE,
					     (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				sendrecv++;
			}
			tally_region_end(name);
		}
	}
	/* a region only some ranks have: the unified table gets rank-specific paths */
	snprintf(own, sizeof own, "group_%d", rank % 8);
	for (int i = 0; i < rank % 4 + 1; i++) {
		tally_region_begin(own);
		tally_region_end(own);
	}
	for (int i = 0; i < 2; i++, allreduce++)
		MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	snprintf(name, sizeof name, "truth.%d", rank);
	f = fopen(name, "w");
	if (!f)
		return 1;
	for (int k = 0; k < PHASES; k++)
		fprintf(f, "region phase_%d %d\n", k, visits[k]);
	fprintf(f, "region %s %d\n", own, rank % 4 + 1);
	fprintf(f, "mpi MPI_Sendrecv %d\nmpi MPI_Allreduce %d\n", sendrecv, allreduce);
	fclose(f);
	MPI_Finalize();
	return 0;
}
