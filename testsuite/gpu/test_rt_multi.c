/*
 * test_rt_multi.c - MPI + CUDA program that chooses its GPU after
 * MPI_Init, for the runtime's per-context binding (run_rt_multi.sh).
 * Mode "setdev": each rank calls cudaSetDevice(rank % GPUs) after
 * MPI_Init (tg_work_on) and launches TM_LAUNCHES work kernels there.
 * Mode "all": each rank launches TM_LAUNCHES work kernels on every
 * visible GPU in turn.  Mode "copy": 3 launches of the copy kernel on GPU
 * 0 (TG_COPY_MIB MiB read each; run_rt_cache.sh); "read": 3 of a kernel
 * that only reads them; "bump": 3 of a kernel adding 1 in place, then
 * every element must be 3 (a replay that did not restore the memory
 * between its passes adds once per pass); "bump2": TM_THREADS threads each
 * launch it TM_THREAD_LAUNCHES times into the one context at once, then
 * every element must be their product (Tally's own replay of one thread's
 * launch must not take in the other's: cuda_replay_serial.c).  Ranks take turns (barriers).  Each rank prints
 * "USED rank device uuid" for every GPU it launched on.  77 without a GPU.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "gpu_kernels.h"
#include "gpu_present.h"

#define TM_LAUNCHES 3
#define TM_THREADS 2
#define TM_THREAD_LAUNCHES 10

static void *bump_thread(void *arg)
{
	int *ok = arg;

	for (int k = 0; k < TM_THREAD_LAUNCHES && *ok; k++)
		*ok = tg_bump() == 0 && tg_sync() == 0;
	return NULL;
}

/* Mode bump2: TM_THREADS threads launching bump into one context at once. */
static int bump_threads(void)
{
	pthread_t th[TM_THREADS];
	int ok[TM_THREADS], all = 1, made = 0;
	long bad;

	for (int i = 0; i < TM_THREADS; i++) {
		ok[i] = 1;
		made += pthread_create(&th[i], NULL, bump_thread, &ok[i]) == 0;
	}
	for (int i = 0; i < made; i++) {
		pthread_join(th[i], NULL);
		all = all && ok[i];
	}
	bad = tg_count_not((float)(TM_THREADS * TM_THREAD_LAUNCHES));
	printf("bump2: %ld of %zu elements not %d (%d threads x %d launches)\n", bad, tg_copy_floats(),
	       TM_THREADS * TM_THREAD_LAUNCHES, TM_THREADS, TM_THREAD_LAUNCHES);
	return all && made == TM_THREADS && bad == 0;
}

static int run_on(int rank, int dev)
{
	char uuid[64] = "?";

	for (int k = 0; k < TM_LAUNCHES; k++)
		if (tg_work_on(dev, TG_BLOCKS, TG_THREADS, TG_ITERS) != 0) {
			printf("rank %d: launch %d on GPU %d failed\n", rank, k, dev);
			return -1;
		}
	if (tg_sync() != 0)
		return -1;
	tg_uuid(dev, uuid, sizeof uuid);
	printf("USED %d %d %s\n", rank, dev, uuid);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	int rank, size, ngpu, ok = 1, all;
	int every = argc > 1 && !strcmp(argv[1], "all");
	int copy = argc > 1 && !strcmp(argv[1], "copy");
	int rd = argc > 1 && !strcmp(argv[1], "read");
	int bmp = argc > 1 && !strcmp(argv[1], "bump");
	int bmp2 = argc > 1 && !strcmp(argv[1], "bump2");

	MPI_Init(&argc, &argv);   /* before any CUDA call: the device is chosen after it */
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	ngpu = tg_device_count();
	PMPI_Allreduce(&ngpu, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (all < 1) {
		char why[512] = "";
		int gpu = gpu_present(why, sizeof why);

		if (rank == 0)
			printf("%s: %s\n", gpu ? "FAIL" : "SKIP", gpu ? "no GPU visible to the test" : why);
		MPI_Finalize();
		return gpu ? 1 : 77;
	}
	if ((copy || rd || bmp || bmp2) && tg_init((size_t)TG_BLOCKS * TG_THREADS, tg_copy_floats()) != 0)
		ok = 0;
	for (int turn = 0; turn < size && ok; turn++) {
		if (turn == rank) {
			if (bmp2)
				ok = bump_threads();
			else if (copy || rd || bmp)
				for (int k = 0; k < TM_LAUNCHES && ok; k++)
					ok = (copy ? tg_copy() : rd ? tg_readsum() : tg_bump()) == 0 && tg_sync() == 0;
			if (bmp && ok) {
				long bad = tg_count_not((float)TM_LAUNCHES);

				printf("bump: %ld of %zu elements not %d\n", bad, tg_copy_floats(), TM_LAUNCHES);
				ok = bad == 0;
			}
			else if (every)
				for (int d = 0; d < ngpu && ok; d++)
					ok = run_on(rank, d) == 0;
			else
				ok = run_on(rank, rank % ngpu) == 0;
		}
		MPI_Barrier(MPI_COMM_WORLD);
	}
	PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (rank == 0)
		printf("test_rt_multi: %d ranks, %d GPUs, %s\n", size, ngpu, ok ? "done" : "FAILED");
	MPI_Finalize();
	return ok ? 0 : 1;
}
