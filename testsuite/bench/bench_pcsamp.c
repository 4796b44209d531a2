/*
 * bench_pcsamp.c - cost of continuous GPU PC sampling: wall time of 100
 * launches of pcs_fma (the -lineinfo kernels of testsuite/gpu, 10,000
 * dependent-FMA iterations each, as test_pcsamp's bench mode) unprofiled
 * and under continuous sampling, best of REPS each, and their ratio
 * (the target is <= 1.1).  Argument: the period as log2 cycles (0:
 * CUPTI's default).  Dropped samples and hardware-buffer-full events are
 * printed.  77 without a GPU.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tally.h"
#include "../gpu/pcsamp_kernels.h"

#include "th_clock.h"

#define LAUNCHES 100
#define ITERS 10000
#define REPS 5

/* Best of REPS: 100 launches then one synchronisation. */
static double hundred(void)
{
	double best = 1e30;

	for (int r = 0; r < REPS; r++) {
		double t = th_now_s();

		for (int i = 0; i < LAUNCHES; i++)
			pk_fma_async(ITERS);
		pk_sync();
		t = th_now_s() - t;
		best = t < best ? t : best;
	}
	return best;
}

int main(int argc, char **argv)
{
	tally_gpu_pcsampling_config_t cfg = { .size = sizeof cfg };
	tally_gpu_pcsampling_stats_t st = { .size = sizeof st };
	double t0, t1;
	int rc;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return 1;
	if (pk_init(1u << 20) != 0) {
		printf("SKIP: no usable GPU\n");
		return 77;
	}
	cfg.period = argc > 1 ? atoi(argv[1]) : 0;
	hundred();
	t0 = hundred();
	rc = tally_gpu_pcsampling_enable(NULL, &cfg);
	if (rc != PAPI_OK) {
		printf("SKIP: PC sampling unavailable: %s\n", PAPI_strerror(rc));
		return 77;
	}
	t1 = hundred();
	if (tally_gpu_pcsampling_disable(NULL) != PAPI_OK || tally_gpu_pcsampling_get_stats(NULL, &st) != PAPI_OK)
		return 1;
	printf("BENCH pcsamp: %d launches x %d iterations, best of %d: unprofiled %.4f s, continuous sampling "
	       "2^%d %.4f s, ratio %.3f; samples %llu, in records %llu, dropped %llu, hw-buffer-full %llu\n",
	       LAUNCHES, ITERS, REPS, t0, st.period, t1, t1 / t0, (unsigned long long)st.total_samples,
	       (unsigned long long)st.record_samples, (unsigned long long)st.dropped_samples,
	       (unsigned long long)st.hw_buffer_full);
	return t1 / t0 <= 1.1 && st.total_samples > 0 ? 0 : 1;
}
