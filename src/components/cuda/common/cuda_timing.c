/*
 * cuda_timing.c - TALLY_CUDA_TIMING=1: the wall time of each start-up
 * and collection phase of the cuda component on stderr, one line per
 * call ("tally-cuda-time <phase> <ms> ms"), to see where a GPU run's
 * fixed cost goes (docs/gpu-startup.md).
 */
#include "cuda_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "tally_shared.h"

/* Read once: whether phases are timed. */
static struct {
	pthread_once_t once;
	int on;
} timing = { .once = PTHREAD_ONCE_INIT };

static void read_env(void)
{
	timing.on = tly_setting_flag(TLY_SET_cuda_timing);
}

double tly_cu_time_start(void)
{
	struct timespec ts;

	pthread_once(&timing.once, read_env);
	if (!timing.on)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void tly_cu_time_end(const char *phase, double t0)
{
	double t1;

	if (t0 == 0)
		return;
	t1 = tly_cu_time_start();
	fprintf(stderr, "tally-cuda-time %s %.1f ms\n", phase, (t1 - t0) * 1e3);
}
