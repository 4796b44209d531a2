/* rt_app.c - MPI+OpenMP test program with known MPI bytes and region visits.
 * argv[1]: "ok" (default), "term" (SIGTERM to itself after 3 steps),
 * "abort" (MPI_Abort after 3 steps), "exit" (exit(3) after 3 steps),
 * "hang" (after 3 steps rank 0 creates the file "ready", then every rank
 * waits for a signal: the test sends SIGTERM to mpirun). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tally.h"

#define STEPS 5

static double work(void)
{
	double s = 0;
#pragma omp parallel reduction(+ : s)
	{
#pragma omp for
		for (int i = 0; i < 200000; i++)
			s += i * 0.5;
	}
	return s;
}

static void hang(int rank)
{
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		FILE *f = fopen("ready", "w");

		if (f)
			fclose(f);
	}
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "ok";
	int rank, size, provided, bc[7] = { 0 };
	static double sbuf[1000], rbuf[1000], red[10];

	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int it = 0; it < STEPS; it++) {
		if (it == 3 && strcmp(mode, "ok")) {
			if (!strcmp(mode, "term"))
				raise(SIGTERM);
			if (!strcmp(mode, "abort")) {
				MPI_Barrier(MPI_COMM_WORLD);
				MPI_Abort(MPI_COMM_WORLD, 5);
			}
			if (!strcmp(mode, "exit"))
				exit(3);
			if (!strcmp(mode, "hang"))
				hang(rank);
		}
		tally_region_begin("step");
		red[0] = work();
		tally_region_begin("comm");
		MPI_Sendrecv(sbuf, 100 * (rank + 1), MPI_DOUBLE, (rank + 1) % size, 1, rbuf, 1000, MPI_DOUBLE,
			     (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Allreduce(MPI_IN_PLACE, red, 10, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		MPI_Bcast(bc, 7, MPI_INT, 0, MPI_COMM_WORLD);
		tally_region_end("comm");
		tally_region_end("step");
	}
	MPI_Finalize();
	return 0;
}
