/*
 * test_rt_kernels.c - MPI + CUDA program for the runtime's GPU metrics
 * (run under tally-run by run_rt_gpu.sh; checked by check_rt_gpu.py).
 * Each rank launches TG_WORK_LAUNCHES work kernels inside the Tally region
 * "solve" and, inside it, the NVTX range "gpu_phase", then one more work
 * kernel outside any region.  Every work kernel runs TG_BLOCKS x TG_THREADS
 * threads x TG_ITERS FFMAs.  The ranks take turns (barriers): GPU
 * counters are device-wide, so ranks sharing a GPU must not have kernels
 * profiled at the same time.  Exits 77 without a GPU.  Argument "vary": a
 * deliberately non-deterministic program for application replay, one more
 * work kernel in "solve" per TALLY_PASS_INDEX (run k of tally-run --passes
 * launches k more).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvtx3/nvToolsExt.h>

#include "gpu_kernels.h"
#include "gpu_present.h"
#include "tally.h"

#define TG_WORK_LAUNCHES 3

static void phase(int rank, int launches)
{
	tally_region_begin("solve");
	nvtxRangePushA("gpu_phase");
	for (int k = 0; k < launches; k++)
		if (tg_work(TG_BLOCKS, TG_THREADS, TG_ITERS) != 0)
			printf("rank %d: launch %d failed\n", rank, k);
	tg_sync();
	nvtxRangePop();
	tally_region_end("solve");
	tg_work(TG_BLOCKS, TG_THREADS, TG_ITERS);
	tg_sync();
}

int main(int argc, char **argv)
{
	int rank, size, ok, all, launches = TG_WORK_LAUNCHES;
	const char *pass = getenv("TALLY_PASS_INDEX");

	if (argc > 1 && !strcmp(argv[1], "vary") && pass)
		launches += atoi(pass);
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	ok = tg_init((size_t)TG_BLOCKS * TG_THREADS, 1 << 20) == 0;
	PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all) {
		char why[512] = "";
		int gpu = gpu_present(why, sizeof why);

		if (rank == 0)
			printf("%s: %s\n", gpu ? "FAIL" : "SKIP",
			       gpu ? "a GPU is here but the test kernels cannot run on it" : why);
		MPI_Finalize();
		return gpu ? 1 : 77;
	}
	for (int turn = 0; turn < size; turn++) {
		if (turn == rank)
			phase(rank, launches);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0)
		printf("test_rt_kernels: %d ranks done\n", size);
	MPI_Finalize();
	return 0;
}
