/*
 * bench_gpu_launch_cost.c [N] - where the time of a profiled kernel launch
 * goes (issue 22, framework overhead): N (default 500) launches of a small
 * kernel (1 block of 32 threads, about 5 us), each mode in the same process:
 *   none     unprofiled
 *   sync     unprofiled, the context synchronised after every launch
 *   hook     Tally's CUPTI subscription and launch hook, no profiler
 *   window   one Range Profiler range over all launches (UserRange)
 *   kernel   one range per kernel (AutoRange, like ncu), a harvest at
 *            the end and one each time the image is full (every
 *            TALLY_CUDA_RANGES launches, at the next launch): with N above
 *            it, rows= says every kernel got its value
 *   ranges   named ranges, a tally_gpu_range_mark every 8 launches
 *            (the runtime's TALLY_CUDA_GRANULARITY=region)
 * For each: the mean time inside the launch call, the whole loop per
 * launch (launches + final synchronisation) and the ratio to `none`.
 * No verdict (label bench); figures in docs/gpu.md.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tally.h"
#include "../gpu/gpu_kernels.h"
#include "../gpu/gpu_present.h"

#include "th_clock.h"

static const char *const metric = "smsp__inst_executed.sum";

static uint64_t no_hook(const tally_gpu_launch_t *l, void *ud)
{
	(void)l;
	(void)ud;
	return 0;
}

static double sum(const double *v, int n)
{
	double s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

/* N launches; *in_launch = summed seconds inside the launch calls. */
static int loop(int n, int sync_each, int mark, double *in_launch, double *total)
{
	double t0 = th_now_s(), in = 0;
	int rc = 0;

	for (int i = 0; i < n; i++) {
		double a = th_now_s();

		rc |= tg_work(1, 32, 100);
		in += th_now_s() - a;
		if (sync_each)
			rc |= tg_sync();
		if (mark && i % 8 == 7) {
			char name[32];

			snprintf(name, sizeof name, "m%d", i / 8);
			rc |= tally_gpu_range_mark(name);
		}
	}
	rc |= tg_sync();
	*in_launch = in;
	*total = th_now_s() - t0;
	return rc;
}

static int group(int mode, tally_gpu_group_t *g)
{
	tally_gpu_event_t id;

	return tally_gpu_set_collection_mode(NULL, mode) || tally_gpu_group_create(NULL, g) ||
	       tally_gpu_event_id(0, metric, &id) || tally_gpu_group_add_event(*g, id) || tally_gpu_group_enable(*g);
}

static int run(const char *mode, int n, double base)
{
	tally_gpu_group_t g = NULL;
	double in, total, t0 = th_now_s(), h0;
	int rc = 0, nk = n;
	double *vals = calloc((size_t)n + 1, sizeof *vals);
	double v = 0;
	int one = 1;

	if (!strcmp(mode, "hook"))
		rc = tally_gpu_set_launch_hook(no_hook, NULL);
	else if (!strcmp(mode, "window") || !strcmp(mode, "kernel") || !strcmp(mode, "ranges"))
		rc = group(!strcmp(mode, "kernel") ? TALLY_GPU_COLLECTION_KERNEL : !strcmp(mode, "ranges") ?
			   TALLY_GPU_COLLECTION_RANGES : TALLY_GPU_COLLECTION_CONTINUOUS, &g);
	h0 = th_now_s();
	rc |= loop(n, !strcmp(mode, "sync"), !strcmp(mode, "ranges"), &in, &total);
	if (g && strcmp(mode, "window"))
		rc |= tally_gpu_group_read_kernels(g, NULL, 0, vals, &nk);
	else if (g)
		rc |= tally_gpu_group_read_all(g, &v, NULL, &one);
	double harvest = th_now_s() - h0 - total;

	if (g)
		rc |= tally_gpu_group_disable(g) | tally_gpu_group_destroy(g);
	if (!strcmp(mode, "hook"))
		tally_gpu_set_launch_hook(NULL, NULL);
	printf("LAUNCH_COST mode=%-6s n=%d in_launch_us=%.1f per_launch_us=%.1f ratio=%.2f harvest_ms=%.1f "
	       "setup_ms=%.1f rows=%d inst=%.0f rc=%d\n", mode, n, 1e6 * in / n, 1e6 * total / n,
	       base > 0 ? total / base : 1.0, 1e3 * harvest, 1e3 * (h0 - t0), g && strcmp(mode, "window") ? nk : 0,
	       g && strcmp(mode, "window") ? sum(vals, nk) : v, rc);
	free(vals);
	return base > 0 || rc ? rc : 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 500, rc = 0;
	double in, base;
	const char *modes[] = { "none", "sync", "hook", "window", "kernel", "ranges" };

	if (n < 1 || n > 100000)
		n = 500;
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return 1;
	if (tg_init((size_t)1024 * 256, 1024) != 0)
		return gpu_setup_failed("the GPU kernels could not be set up");
	loop(n, 0, 0, &in, &base);   /* warm-up */
	loop(n, 0, 0, &in, &base);
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
		rc |= run(modes[i], n, base);
	rc |= run("kernel", n, base);   /* a second session: the context is set up */
	return rc;
}
