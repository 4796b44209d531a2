/*
 * bench_gpu_metrics.c - 100 kernel launches with a 1-pass metric set:
 *   none    unprofiled
 *   kernel  Tally, per-kernel values (kernel collection mode, like ncu)
 *   papi    Tally, a PAPI event set around the 100 launches
 * The wall time of each mode (and of ncu on `none`) is taken by
 * testsuite/gpu/run_device_checks.sh; this program prints its own too.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tally.h"
#include "../gpu/gpu_kernels.h"
#include "../gpu/gpu_present.h"

#include "th_clock.h"

#define LAUNCHES 100

static const char *const metrics[] = {
	"smsp__inst_executed.sum", "dram__bytes_read.sum",   /* one pass on GH100 */
};
#define NM 2

static int launches(void)
{
	int rc = 0;

	for (int i = 0; i < LAUNCHES; i++)
		rc |= tg_work(1024, 256, TG_ITERS);
	return rc | tg_sync();
}

static int run_kernel_mode(void)
{
	tally_gpu_group_t g;
	tally_gpu_event_t id;
	static double vals[LAUNCHES * NM];
	int n = LAUNCHES;

	if (tally_gpu_set_collection_mode(NULL, TALLY_GPU_COLLECTION_KERNEL) || tally_gpu_group_create(NULL, &g))
		return 1;
	for (int i = 0; i < NM; i++)
		if (tally_gpu_event_id(0, metrics[i], &id) || tally_gpu_group_add_event(g, id))
			return 1;
	if (tally_gpu_group_enable(g) || launches() || tally_gpu_group_read_kernels(g, NULL, 0, vals, &n))
		return 1;
	printf("kernels %d, last inst %.0f\n", n, vals[(n - 1) * NM]);
	return tally_gpu_group_disable(g) | tally_gpu_group_destroy(g);
}

static int run_papi(void)
{
	int es = PAPI_NULL;
	long long v[NM];
	char name[256];

	if (PAPI_create_eventset(&es) != PAPI_OK)
		return 1;
	for (int i = 0; i < NM; i++) {
		snprintf(name, sizeof name, "cuda:::%s:device=0", metrics[i]);
		if (PAPI_add_named_event(es, name) != PAPI_OK)
			return 1;
	}
	if (PAPI_start(es) || launches() || PAPI_stop(es, v))
		return 1;
	printf("inst over %d launches %lld\n", LAUNCHES, v[0]);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "none";
	double t0 = th_now_s();
	int rc;

	if (strcmp(mode, "none") != 0 && PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return 1;
	if (tg_init((size_t)1024 * 256, 1024) != 0)
		return gpu_setup_failed("the GPU kernels could not be set up");
	t0 = th_now_s();
	rc = strcmp(mode, "kernel") == 0 ? run_kernel_mode() : strcmp(mode, "papi") == 0 ? run_papi() : launches();
	printf("BENCH mode=%s launches=%d seconds=%.4f rc=%d\n", mode, LAUNCHES, th_now_s() - t0, rc);
	return rc;
}
