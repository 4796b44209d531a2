/*
 * trace_shapes.c - job shapes whose traces lost events (issue 49), for
 * run_trace_test.sh.  Built twice:
 *   trace_hybrid (-DSHAPE_MPI): MPI with 2 OpenMP threads, meant for one
 *       rank (singleton or mpirun -np 1): user regions in a parallel
 *       region, a message to itself, a collective;
 *   trace_late: no MPI; worker threads register (their first events)
 *       before the main thread's first traced event -- a pthread barrier
 *       makes that order certain -- then the main thread's regions and an
 *       OpenMP parallel region.
 * Usage: trace_hybrid|trace_late N   (N inner visits per thread)
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "tally.h"
#ifdef SHAPE_MPI
#include <mpi.h>
#endif

static volatile double sink;
static long n_inner;

static void work(const char *name)
{
	tally_region_begin(name);
	for (long i = 0; i < n_inner; i++) {
		tally_region_begin("inner");
		sink += (double)i;
		tally_region_end("inner");
	}
	tally_region_end(name);
}

static void parallel_part(void)
{
#pragma omp parallel num_threads(2)
	work("team");
}

#ifdef SHAPE_MPI
int main(int argc, char **argv)
{
	int prov, rank;
	double a = 1.0, b = 0.0;
	MPI_Request rq[2];

	n_inner = argc > 1 ? atol(argv[1]) : 1000;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &prov);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	work("main");
	parallel_part();
	MPI_Irecv(&b, 1, MPI_DOUBLE, rank, 5, MPI_COMM_WORLD, &rq[0]);
	MPI_Isend(&a, 1, MPI_DOUBLE, rank, 5, MPI_COMM_WORLD, &rq[1]);
	MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	MPI_Allreduce(&a, &b, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
#else
static pthread_barrier_t registered;

static void *early(void *arg)
{
	(void)arg;
	work("early");   /* this thread's first event: it registers */
	pthread_barrier_wait(&registered);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[2];

	n_inner = argc > 1 ? atol(argv[1]) : 1000;
	pthread_barrier_init(&registered, NULL, 3);
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, early, NULL);
	pthread_barrier_wait(&registered);   /* both workers are in the list */
	work("main");                        /* the main thread's first event */
	parallel_part();
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&registered);
	return 0;
}
#endif
