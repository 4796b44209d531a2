/*
 * trace_mt.c - MPI requests completed on another thread than the one that
 * posted them (MPI_THREAD_MULTIPLE), for the trace tests: per rank the
 * main thread posts N receives (from the left neighbour) and N sends (to
 * the right one), tag 5, in the user region "post"; a second thread
 * completes them, half by MPI_Wait one by one and half by one
 * MPI_Waitall, in the user region "complete".  Then the main thread posts
 * and completes one more pair itself (tag 6).
 * Usage: mpirun -np 2 trace_mt N   (exit 77 without MPI_THREAD_MULTIPLE)
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "tally.h"

struct work {
	MPI_Request *rq;
	int n;   /* requests */
};

static void *complete(void *arg)
{
	struct work *w = arg;
	int half = w->n / 2;

	tally_region_begin("complete");
	for (int i = 0; i < half; i++)
		MPI_Wait(&w->rq[i], MPI_STATUS_IGNORE);
	MPI_Waitall(w->n - half, w->rq + half, MPI_STATUSES_IGNORE);
	tally_region_end("complete");
	return NULL;
}

int main(int argc, char **argv)
{
	int prov, rank, size, n = argc > 1 ? atoi(argv[1]) : 100;
	pthread_t th;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &prov);
	if (prov < MPI_THREAD_MULTIPLE) {
		printf("MPI_THREAD_MULTIPLE not provided (%d)\n", prov);
		MPI_Finalize();
		return 77;
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	double *buf = calloc(2 * (size_t)n + 2, sizeof *buf);
	MPI_Request *rq = malloc((2 * (size_t)n + 2) * sizeof *rq);
	struct work w = { rq, 2 * n };

	tally_region_begin("post");
	for (int i = 0; i < n; i++)
		MPI_Irecv(&buf[i], 1, MPI_DOUBLE, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &rq[i]);
	for (int i = 0; i < n; i++)
		MPI_Isend(&buf[n + i], 1, MPI_DOUBLE, (rank + 1) % size, 5, MPI_COMM_WORLD, &rq[n + i]);
	tally_region_end("post");
	pthread_create(&th, NULL, complete, &w);
	pthread_join(th, NULL);
	MPI_Irecv(&buf[2 * n], 1, MPI_DOUBLE, (rank + size - 1) % size, 6, MPI_COMM_WORLD, &rq[0]);
	MPI_Isend(&buf[2 * n + 1], 1, MPI_DOUBLE, (rank + 1) % size, 6, MPI_COMM_WORLD, &rq[1]);
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	free(rq);
	free(buf);
	MPI_Finalize();
	return 0;
}
