/*
 * test_gpu_truth.c - per-kernel GPU metrics in kernel collection mode for
 * kernels with known work.  Prints "TALLY <kernel> <metric> <value>" lines
 * that check_vs_ncu.py compares with ncu on the same binary (run with
 * argument "plain" under ncu: the same kernels, no Tally).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tharness.h"
#include "tally.h"
#include "gpu_skip.h"

static const char *const metrics[] = {
	"smsp__inst_executed.sum",
	"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
	"dram__bytes_read.sum",
};
#define NM 3

/* TG_COPY_AGAIN=1: the copy a second time at the end (its input is then
 * in the L2 when the copy fits there: the cache control test). */
static int copy_again(void)
{
	const char *v = getenv("TG_COPY_AGAIN");

	return v && *v == '1';
}

static int launch_all(void)
{
	return tg_work(TG_BLOCKS, TG_THREADS, TG_ITERS) | tg_copy() | tg_work(TG_BLOCKS, TG_THREADS, TG_ITERS / 2) |
	       (copy_again() ? tg_copy() : 0) | tg_sync();
}

/* Per-kernel values of every group of the sets into vals[kernel * NM + metric]. */
static int read_groups(tally_gpu_group_sets_t *sets, const tally_gpu_event_t *ids, char names[8][128], double *vals)
{
	int kernels = 0;

	for (int k = 0; k < sets->num_sets; k++)
		for (int g = 0; g < sets->sets[k].num_groups; g++) {
			tally_gpu_group_t grp = sets->sets[k].groups[g];
			tally_gpu_event_t ev[TALLY_GPU_GROUP_MAX_EVENTS];
			size_t sz = sizeof ev;
			double v[8 * TALLY_GPU_GROUP_MAX_EVENTS];
			char nm[8][128];
			int n = 8, ne;

			TH_EQ(tally_gpu_group_get_attr(grp, TALLY_GPU_GROUP_ATTR_EVENTS, ev, &sz), PAPI_OK);
			ne = (int)(sz / sizeof ev[0]);
			if (tally_gpu_group_read_kernels(grp, &nm[0][0], sizeof nm[0], v, &n) != PAPI_OK || n == 0)
				continue;   /* a group listed in several sets was read already */
			kernels = n;
			for (int r = 0; r < n && r < 8; r++) {
				snprintf(names[r], sizeof names[r], "%s", nm[r]);
				for (int e = 0; e < ne; e++)
					for (int i = 0; i < NM; i++)
						if (ids[i] == ev[e])
							vals[r * NM + i] = v[r * ne + e];
			}
		}
	return kernels;
}

int main(int argc, char **argv)
{
	tally_gpu_group_sets_t *sets;
	tally_gpu_event_t ids[NM];
	char names[8][128];
	double vals[8 * NM] = { 0 };
	int n, rc;

	if (argc > 1 && strcmp(argv[1], "plain") == 0) {
		char why[512] = "";
		int gpu = gpu_present(why, sizeof why);

		if (gpu <= 0) {
			printf("%s: %s\n", gpu == 0 ? "SKIP" : "FAIL", why);
			return gpu == 0 ? 77 : 1;
		}
		if (tg_init((size_t)TG_BLOCKS * TG_THREADS, tg_copy_floats()) != 0) {
			printf("FAIL: a GPU is here but the test kernels cannot run on it\n");
			return 1;
		}
		return launch_all() ? 1 : 0;
	}
	rc = gpu_test_start();
	if (rc)
		return rc;
	for (int i = 0; i < NM; i++)
		TH_EQ(tally_gpu_event_id(0, metrics[i], &ids[i]), PAPI_OK);
	/* The three metrics need 2 passes on GH100: kernel replay, per kernel. */
	TH_EQ(tally_gpu_group_sets_create(NULL, ids, NM, &sets), PAPI_OK);
	printf("%d metrics: %d passes\n", NM, sets->num_sets);
	TH_EQ(tally_gpu_kernel_replay_enable(NULL), PAPI_OK);
	TH_EQ(tally_gpu_group_sets_enable_all(sets), PAPI_OK);
	TH_EQ(launch_all(), 0);
	n = read_groups(sets, ids, names, vals);
	TH_EQ(n, 3 + copy_again());
	for (int k = 0; k < n && k < 8; k++)
		for (int i = 0; i < NM; i++)
			printf("TALLY %d %s %s %.0f\n", k, names[k], metrics[i], vals[k * NM + i]);
	/* Ground truth from the program itself: one FFMA per iteration and
	 * thread; the copy kernel has none and reads at least its input. */
	TH_EQ(vals[0 * NM + 1], (double)TG_BLOCKS * TG_THREADS * TG_ITERS);
	TH_EQ(vals[2 * NM + 1], (double)TG_BLOCKS * TG_THREADS * (TG_ITERS / 2));
	TH_EQ(vals[1 * NM + 1], 0);
	TH_CHECK(vals[1 * NM + 2] >= (double)tg_copy_floats() * 4 * 0.98);
	TH_CHECK(strstr(names[0], "work") != NULL && strstr(names[1], "copy") != NULL);
	TH_EQ(tally_gpu_group_sets_disable_all(sets), PAPI_OK);
	TH_EQ(tally_gpu_group_sets_destroy(sets), PAPI_OK);
	PAPI_shutdown();
	return th_done();
}
