/*
 * test_gpu_groups.c - the legacy event-group model: error paths, a second
 * profiler on the context, group sets for a 2-pass list (same passes as
 * the host API), kernel replay collecting every metric in one run with
 * the replay-update callback, and replay values equal to single-pass ones.
 */
#include <stdio.h>
#include <string.h>

#include "tharness.h"
#include "tally.h"
#include "gpu_skip.h"

static const char *const list[] = {
	"smsp__inst_executed.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
	"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum",
	"smsp__sass_inst_executed_op_global_ld.sum", "smsp__sass_inst_executed_op_global_st.sum",
	"sm__throughput.avg.pct_of_peak_sustained_elapsed",   /* needs several passes */
};
#define NL 7
#define NCOUNTERS 6   /* deterministic counters, compared exactly */
#define KERNELS 3

static struct { int calls; int bad_name; int replays; } upd;

static void on_update(const char *kernel, int replays, void *ud)
{
	(void)ud;
	upd.calls++;
	upd.replays = replays;
	upd.bad_name += strstr(kernel, "work") == NULL;
	printf("replay update: %s, %d replays\n", kernel, replays);
}

static void run_kernels(void)
{
	for (int k = 0; k < KERNELS; k++)
		TH_EQ(tg_work(TG_BLOCKS, TG_THREADS, TG_ITERS), 0);
	TH_EQ(tg_sync(), 0);
}

static void error_paths(const tally_gpu_event_t *ids)
{
	tally_gpu_group_t g, h;
	tally_gpu_event_t bad;
	double v;
	int n = 0;
	size_t sz = sizeof n;

	TH_EQ(tally_gpu_event_id(0, "no_such__metric.sum", &bad), PAPI_ENOEVNT);
	TH_EQ(tally_gpu_group_create(NULL, &g), PAPI_OK);
	TH_EQ(tally_gpu_group_add_event(g, ((tally_gpu_event_t)1 << 40)), PAPI_ENOEVNT);
	TH_EQ(tally_gpu_group_add_event(g, ids[0]), PAPI_OK);
	TH_EQ(tally_gpu_group_read_event(g, ids[0], &v), PAPI_ENOTRUN);   /* disabled */
	TH_EQ(tally_gpu_group_enable(g), PAPI_OK);
	TH_EQ(tally_gpu_group_add_event(g, ids[1]), PAPI_EISRUN);        /* enabled */
	TH_EQ(tally_gpu_group_destroy(g), PAPI_EISRUN);                  /* enabled */
	TH_EQ(tally_gpu_group_get_attr(g, TALLY_GPU_GROUP_ATTR_NUM_EVENTS, &n, &sz), PAPI_OK);
	TH_EQ(n, 1);
	/* A second profiler on the same context. */
	TH_EQ(tally_gpu_group_create(NULL, &h), PAPI_OK);
	TH_EQ(tally_gpu_group_add_event(h, ids[1]), PAPI_OK);
	TH_EQ(tally_gpu_group_enable(h), PAPI_ECNFLCT);
	TH_EQ(tally_gpu_group_destroy(h), PAPI_OK);
	run_kernels();
	TH_EQ(tally_gpu_group_read_event(g, ids[0], &v), PAPI_OK);
	TH_CHECK(v > 0);
	TH_EQ(tally_gpu_group_read_event(g, ids[0], &v), PAPI_OK);   /* reset after read */
	TH_EQ(v, 0);
	TH_EQ(tally_gpu_group_disable(g), PAPI_OK);
	TH_EQ(tally_gpu_group_read_event(g, ids[0], &v), PAPI_ENOTRUN);
	TH_EQ(tally_gpu_group_destroy(g), PAPI_OK);
}

/* Each set alone, the kernels run once per set (application replay). */
static void single_pass(tally_gpu_group_sets_t *s, double *vals, const tally_gpu_event_t *ids)
{
	for (int k = 0; k < s->num_sets; k++) {
		tally_gpu_group_set_t *set = &s->sets[k];
		int rc = tally_gpu_group_set_enable(set);

		/* a metric that alone needs several passes cannot be one set */
		if (rc == PAPI_EMULPASS)
			continue;
		TH_EQ(rc, PAPI_OK);
		run_kernels();
		for (int g = 0; g < set->num_groups; g++) {
			double v[TALLY_GPU_GROUP_MAX_EVENTS];
			tally_gpu_event_t gid[TALLY_GPU_GROUP_MAX_EVENTS];
			int n = TALLY_GPU_GROUP_MAX_EVENTS;

			TH_EQ(tally_gpu_group_read_all(set->groups[g], v, gid, &n), PAPI_OK);
			for (int e = 0; e < n; e++)
				for (int i = 0; i < NL; i++)
					if (ids[i] == gid[e])
						vals[i] = v[e];
		}
		TH_EQ(tally_gpu_group_set_disable(set), PAPI_OK);
	}
}

static void replay_all(tally_gpu_group_sets_t *s, double *vals, const tally_gpu_event_t *ids)
{
	TH_EQ(tally_gpu_group_sets_enable_all(s), PAPI_EMULPASS);   /* replay not on yet */
	TH_EQ(tally_gpu_kernel_replay_enable(NULL), PAPI_OK);
	TH_EQ(tally_gpu_kernel_replay_subscribe_update(on_update, NULL), PAPI_OK);
	TH_EQ(tally_gpu_group_sets_enable_all(s), PAPI_OK);
	run_kernels();
	for (int k = 0; k < s->num_sets; k++)
		for (int g = 0; g < s->sets[k].num_groups; g++) {
			double v[TALLY_GPU_GROUP_MAX_EVENTS];
			tally_gpu_event_t gid[TALLY_GPU_GROUP_MAX_EVENTS];
			int n = TALLY_GPU_GROUP_MAX_EVENTS;

			TH_EQ(tally_gpu_group_read_all(s->sets[k].groups[g], v, gid, &n), PAPI_OK);
			for (int e = 0; e < n; e++)
				for (int i = 0; i < NL; i++)
					if (ids[i] == gid[e] && v[e] != 0)
						vals[i] = v[e];
		}
	TH_EQ(tally_gpu_group_sets_destroy(s), PAPI_EISRUN);
	TH_EQ(tally_gpu_group_sets_disable_all(s), PAPI_OK);
	TH_EQ(tally_gpu_kernel_replay_disable(NULL), PAPI_OK);
}

int main(void)
{
	tally_gpu_event_t ids[NL];
	tally_gpu_group_sets_t *sets;
	double one[NL] = { 0 }, rep[NL] = { 0 };
	int rc = gpu_test_start();

	if (rc)
		return rc;
	for (int i = 0; i < NL; i++)
		TH_EQ(tally_gpu_event_id(0, list[i], &ids[i]), PAPI_OK);
	error_paths(ids);
	TH_EQ(tally_gpu_group_sets_create(NULL, ids, NL, &sets), PAPI_OK);
	printf("group sets: %d sets, host API passes %d\n", sets->num_sets, sets->host_passes);
	TH_CHECK(sets->host_passes >= 2);
	TH_EQ(sets->num_sets, sets->host_passes);
	for (int k = 0; k < sets->num_sets; k++)
		printf("  set %d: %d groups\n", k, sets->sets[k].num_groups);
	single_pass(sets, one, ids);
	replay_all(sets, rep, ids);
	printf("replay updates: %d calls (kernels %d), replays %d\n", upd.calls, KERNELS, upd.replays);
	TH_EQ(upd.calls, KERNELS);
	TH_EQ(upd.bad_name, 0);
	TH_EQ(upd.replays, sets->host_passes);
	for (int i = 0; i < NL; i++) {
		printf("%-56s single-pass %14.2f  kernel replay %14.2f\n", list[i], one[i], rep[i]);
		if (i < NCOUNTERS)
			TH_EQ(one[i], rep[i]);
	}
	TH_EQ(one[1], (double)KERNELS * TG_BLOCKS * TG_THREADS * TG_ITERS);
	TH_EQ(tally_gpu_group_sets_destroy(sets), PAPI_OK);
	PAPI_shutdown();
	return th_done();
}
