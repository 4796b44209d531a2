/*
 * test_gpu_many_kernels.c - per-kernel values with no ceiling: a counter
 * data image holds TALLY_CUDA_RANGES ranges (default 64); a full one is
 * harvested at the next launch, so every one of 3,000 launches of the same
 * small kernel gets a value, and each value equals the one of the first
 * kernel (smsp__inst_executed is exact: the kernels are identical).  The
 * reference is independent of the per-kernel path: one continuous window
 * (a single UserRange) over the same 3,000 launches must count 3,000 times
 * that value.  Then the PAPI level: an event set under kernel replay (a
 * range per kernel) read after 1,500 launches and stopped after 3,000
 * gives 1,500 and 3,000 times it.  A read with less room than the rows
 * returns what fits and keeps the rest for the next read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tharness.h"
#include "tally.h"
#include "gpu_skip.h"

#define N 3000
#define ROOM 2000
static const char *const metric = "smsp__inst_executed.sum";

static void launches(int n)
{
	int rc = 0;

	for (int i = 0; i < n; i++)
		rc |= tg_work(1, 32, 100);
	TH_EQ(rc | tg_sync(), 0);
}

/* One group on the current context in `mode`, enabled. */
static tally_gpu_group_t group(int mode)
{
	tally_gpu_group_t g = NULL;
	tally_gpu_event_t id;

	TH_EQ(tally_gpu_set_collection_mode(NULL, mode), PAPI_OK);
	TH_EQ(tally_gpu_event_id(0, metric, &id), PAPI_OK);
	TH_EQ(tally_gpu_group_create(NULL, &g), PAPI_OK);
	TH_EQ(tally_gpu_group_add_event(g, id), PAPI_OK);
	TH_EQ(tally_gpu_group_enable(g), PAPI_OK);
	return g;
}

static void done(tally_gpu_group_t g)
{
	TH_EQ(tally_gpu_group_disable(g), PAPI_OK);
	TH_EQ(tally_gpu_group_destroy(g), PAPI_OK);
}

/* Rows [from, to) all equal to ref and named after the kernel. */
static int check_rows(const double *v, const char (*nm)[64], int from, int to, double ref)
{
	int bad = 0;

	for (int r = from; r < to; r++)
		if (v[r] != ref || !strstr(nm[r], "work")) {
			if (bad++ < 5)
				printf("kernel %d: %.0f instructions, name '%s' (want %.0f, 'work')\n", r, v[r], nm[r], ref);
		}
	return bad;
}

/* The per-kernel path: N rows, read in two parts (ROOM, then the rest). */
static double per_kernel(void)
{
	static double v[N];
	static char nm[N][64];
	tally_gpu_group_t g = group(TALLY_GPU_COLLECTION_KERNEL);
	int n = ROOM, bad;

	launches(N);
	TH_EQ(tally_gpu_group_read_kernels(g, &nm[0][0], sizeof nm[0], v, &n), PAPI_OK);
	TH_EQ(n, N);   /* kernels seen; ROOM of them returned */
	n = N;
	TH_EQ(tally_gpu_group_read_kernels(g, &nm[ROOM][0], sizeof nm[0], &v[ROOM], &n), PAPI_OK);
	TH_EQ(n, N - ROOM);
	n = N;
	TH_EQ(tally_gpu_group_read_kernels(g, NULL, 0, NULL, &n), PAPI_OK);
	TH_EQ(n, 0);   /* nothing left, nothing counted twice */
	done(g);
	printf("per kernel: %d kernels, first %.0f, kernel 1,024 %.0f, kernel 1,025 %.0f, last %.0f instructions\n",
	       N, v[0], v[1023], v[1024], v[N - 1]);
	TH_CHECK(v[0] > 0);
	bad = check_rows(v, nm, 0, N, v[0]);
	printf("kernels without the first kernel's value or name: %d of %d\n", bad, N);
	TH_EQ(bad, 0);
	return v[0];
}

/* One window over N launches (continuous mode: one range). */
static void window(double per)
{
	tally_gpu_group_t g = group(TALLY_GPU_COLLECTION_CONTINUOUS);
	double v = 0;
	int one = 1;

	launches(N);
	TH_EQ(tally_gpu_group_read_all(g, &v, NULL, &one), PAPI_OK);
	done(g);
	printf("one window over %d launches: %.0f instructions (%d x %.0f = %.0f)\n", N, v, N, per, N * per);
	TH_CHECK(v == N * per);
}

/* PAPI_start / PAPI_read / PAPI_stop under kernel replay. */
static void papi_level(double per)
{
	int es = PAPI_NULL;
	long long half = 0, all = 0;

	TH_EQ(tally_gpu_set_collection_mode(NULL, TALLY_GPU_COLLECTION_CONTINUOUS), PAPI_OK);
	TH_EQ(tally_gpu_kernel_replay_enable(NULL), PAPI_OK);
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es, "cuda:::smsp__inst_executed.sum:device=0"), PAPI_OK);
	TH_EQ(PAPI_start(es), PAPI_OK);
	launches(N / 2);
	TH_EQ(PAPI_read(es, &half), PAPI_OK);
	launches(N - N / 2);
	TH_EQ(PAPI_stop(es, &all), PAPI_OK);
	TH_EQ(tally_gpu_kernel_replay_disable(NULL), PAPI_OK);
	printf("PAPI, kernel replay: %lld after %d launches (want %.0f), %lld after %d (want %.0f)\n", half, N / 2,
	       N / 2 * per, all, N, N * per);
	TH_CHECK((double)half == N / 2 * per);
	TH_CHECK((double)all == N * per);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
}

int main(void)
{
	int rc = gpu_test_start();
	double per;

	if (rc)
		return rc;
	printf("TALLY_CUDA_RANGES=%s\n", getenv("TALLY_CUDA_RANGES") ? getenv("TALLY_CUDA_RANGES") : "(default: 64)");
	launches(10);   /* warm-up */
	per = per_kernel();
	window(per);
	papi_level(per);
	PAPI_shutdown();
	return th_done();
}
