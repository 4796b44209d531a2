/*
 * test_rt_nompi_kernels.c - the kernels of test_rt_kernels.c in a program
 * that knows neither MPI nor Tally (an unmodified CUDA binary): 3 work
 * launches inside the NVTX range "gpu_phase", then 1 outside.  Under
 * tally-run its per-kernel cuda::: values must equal those of the same
 * kernels in test_rt_kernels under mpirun (check_rt_nompi.py).  With an
 * argument N: N launches of a small work kernel instead (run_rt_many.sh:
 * every launch gets its value, past the counter data image and the old
 * 4,096-row limit).  Exits 77 without a GPU (asked of the driver), 1 when
 * one is there but unusable.
 */
#include <stdio.h>
#include <stdlib.h>

#include <nvtx3/nvToolsExt.h>

#include "gpu_kernels.h"
#include "gpu_present.h"

#define TG_WORK_LAUNCHES 3

static int many(int n)
{
	int rc = 0;

	for (int i = 0; i < n; i++)
		rc |= tg_work(1, 32, 100);
	rc |= tg_sync();
	printf("test_rt_nompi_kernels: %d small launches, rc %d\n", n, rc);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	char why[512] = "";
	int gpu = gpu_present(why, sizeof why);

	if (gpu <= 0) {
		printf("%s: %s\n", gpu == 0 ? "SKIP" : "FAIL", why);
		return gpu == 0 ? 77 : 1;
	}
	if (tg_init((size_t)TG_BLOCKS * TG_THREADS, 1 << 20) != 0) {
		printf("FAIL: a GPU is here but the test kernels cannot run on it\n");
		return 1;
	}
	if (argc > 1)
		return many(atoi(argv[1]));
	nvtxRangePushA("gpu_phase");
	for (int k = 0; k < TG_WORK_LAUNCHES; k++)
		if (tg_work(TG_BLOCKS, TG_THREADS, TG_ITERS) != 0)
			printf("launch %d failed\n", k);
	tg_sync();
	nvtxRangePop();
	tg_work(TG_BLOCKS, TG_THREADS, TG_ITERS);
	tg_sync();
	printf("test_rt_nompi_kernels: done\n");
	return 0;
}
