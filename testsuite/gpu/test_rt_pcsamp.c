/*
 * test_rt_pcsamp.c - MPI + CUDA program for PC sampling under the runtime
 * (run under tally-run with TALLY_PCSAMP=1 by run_rt_pcsamp.sh, file
 * checked by check_rt_pcsamp.py).  The kernels are pcsamp_kernels.cu
 * (built with -lineinfo):
 *   hot     every rank launches pcs_fma (one hot FMA loop) FMA_ITERS times;
 *   serial  two launches of pcs_fma, ITERS and 2 x ITERS iterations (run
 *           in kernel-serialized mode: samples per correlation id ~1:2).
 * Exits 77 without a GPU.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "pcsamp_kernels.h"
#include "gpu_present.h"

#define FMA_ITERS 1000000

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "hot";
	int rank, ok, all, rc = 0;
	int64_t sum;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	ok = pk_init(1u << 20) == 0;
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all) {
		char why[512] = "";
		int gpu = gpu_present(why, sizeof why);

		if (rank == 0)
			printf("%s: %s\n", gpu ? "FAIL" : "SKIP",
			       gpu ? "a GPU is here but the test kernels cannot run on it" : why);
		MPI_Finalize();
		return gpu ? 1 : 77;
	}
	if (!strcmp(mode, "serial")) {
		rc |= pk_fma(FMA_ITERS / 4, &sum) < 0;
		rc |= pk_fma(FMA_ITERS / 2, &sum) < 0;
	} else {
		rc |= pk_fma(FMA_ITERS, &sum) < 0;
	}
	printf("test_rt_pcsamp: rank %d mode %s rc %d\n", rank, mode, rc);
	MPI_Finalize();
	return rc;
}
