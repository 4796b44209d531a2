/*
 * test_gpu_user_replay.c - application replay across processes (CUPTI
 * user replay with the counter data image kept on disk between runs).
 *
 * The driver (no arguments) collects a list that needs several passes,
 * including a metric that alone spans several (sm__throughput...), by
 * kernel replay in its own process; then runs itself once per pass
 * (`pass K IMAGE`), each run launching the same 3 kernels; the run of the
 * last pass writes its values next to the image.  Checked: deterministic
 * counters equal to kernel replay, FFMA = threads x iterations exactly,
 * sm__throughput within 10% of kernel replay (a rate, not a count); runs
 * of earlier passes read no kernels; a pass started out of order or from
 * another list's image is refused with a reason.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tharness.h"
#include "tally.h"
#include "gpu_skip.h"

static const char *const list[] = {
	"smsp__inst_executed.sum", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
	"sm__warps_launched.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
};
#define NL 4
#define NCOUNTERS 3   /* exact counts */
#define KERNELS 3

static void run_kernels(void)
{
	for (int k = 0; k < KERNELS; k++)
		TH_EQ(tg_work(TG_BLOCKS, TG_THREADS, TG_ITERS), 0);
	TH_EQ(tg_sync(), 0);
}

/* Per-kernel values of every group, summed over the kernels (throughput:
 * the mean).  Returns the kernels seen. */
static int read_values(tally_gpu_group_sets_t *s, const tally_gpu_event_t *ids, double *vals)
{
	int seen = 0;

	for (int k = 0; k < s->num_sets; k++)
		for (int g = 0; g < s->sets[k].num_groups; g++) {
			tally_gpu_event_t gid[TALLY_GPU_GROUP_MAX_EVENTS];
			double v[64 * TALLY_GPU_GROUP_MAX_EVENTS];
			size_t sz = sizeof gid;
			int n = 0, nk = 64;
			size_t nsz = sizeof n;

			tally_gpu_group_get_attr(s->sets[k].groups[g], TALLY_GPU_GROUP_ATTR_NUM_EVENTS, &n, &nsz);
			tally_gpu_group_get_attr(s->sets[k].groups[g], TALLY_GPU_GROUP_ATTR_EVENTS, gid, &sz);
			TH_EQ(tally_gpu_group_read_kernels(s->sets[k].groups[g], NULL, 0, v, &nk), PAPI_OK);
			seen = nk > seen ? nk : seen;
			for (int r = 0; r < nk; r++)
				for (int e = 0; e < n; e++)
					for (int i = 0; i < NL; i++)
						if (ids[i] == gid[e])
							vals[i] += v[r * n + e] / (i < NCOUNTERS ? 1 : nk);
		}
	return seen;
}

static tally_gpu_group_sets_t *make_sets(tally_gpu_event_t *ids)
{
	tally_gpu_group_sets_t *s = NULL;

	for (int i = 0; i < NL; i++)
		TH_EQ(tally_gpu_event_id(0, list[i], &ids[i]), PAPI_OK);
	TH_EQ(tally_gpu_group_sets_create(NULL, ids, NL, &s), PAPI_OK);
	return s;
}

/* One run of an application replay; 3 when the pass cannot start. */
static int one_pass(int pass, const char *image)
{
	tally_gpu_event_t ids[NL];
	tally_gpu_group_sets_t *s = make_sets(ids);
	double vals[NL] = { 0 };
	char out[600];
	int rc, seen;
	FILE *f;

	TH_EQ(tally_gpu_user_replay_pass(NULL, pass, image), PAPI_OK);
	rc = tally_gpu_group_sets_enable_all(s);
	if (rc != PAPI_OK) {
		PAPI_perror("pass refused");
		return 3;
	}
	run_kernels();
	seen = read_values(s, ids, vals);
	TH_EQ(tally_gpu_group_sets_disable_all(s), PAPI_OK);
	printf("pass %d of %d: %d kernels read\n", pass, s->host_passes, seen);
	TH_EQ(seen, pass == s->host_passes - 1 ? KERNELS : 0);
	if (pass == s->host_passes - 1) {
		snprintf(out, sizeof out, "%s.values", image);
		f = fopen(out, "w");
		TH_CHECK(f != NULL);
		for (int i = 0; f && i < NL; i++)
			fprintf(f, "%.17g\n", vals[i]);
		if (f)
			fclose(f);
	}
	TH_EQ(tally_gpu_group_sets_destroy(s), PAPI_OK);
	return th_done();
}

static int spawn(const char *self, int pass, const char *image)
{
	char arg[16];
	pid_t pid;
	int st = 0;

	snprintf(arg, sizeof arg, "%d", pass);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execl(self, self, "pass", arg, image, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int driver(const char *self)
{
	tally_gpu_event_t ids[NL];
	tally_gpu_group_sets_t *s;
	double kr[NL] = { 0 }, ar[NL] = { 0 };
	char image[] = "/tmp/tally-userreplay-XXXXXX", values[64];
	int passes, fd = mkstemp(image);
	FILE *f;

	TH_CHECK(fd >= 0);
	close(fd);
	s = make_sets(ids);
	passes = s->host_passes;
	printf("%d metrics: %d passes\n", NL, passes);
	TH_CHECK(passes >= 3);
	TH_EQ(tally_gpu_kernel_replay_enable(NULL), PAPI_OK);
	TH_EQ(tally_gpu_group_sets_enable_all(s), PAPI_OK);
	run_kernels();
	TH_EQ(read_values(s, ids, kr), KERNELS);
	TH_EQ(tally_gpu_group_sets_disable_all(s), PAPI_OK);
	TH_EQ(tally_gpu_kernel_replay_disable(NULL), PAPI_OK);
	TH_EQ(tally_gpu_group_sets_destroy(s), PAPI_OK);
	/* out of order: pass 1 before pass 0 wrote the image (an empty file) */
	TH_EQ(spawn(self, 1, image), 3);
	for (int k = 0; k < passes; k++) {
		TH_EQ(spawn(self, k, image), 0);
		if (k == 0)   /* pass 2 cannot follow pass 0 */
			TH_EQ(spawn(self, 2, image), 3);
	}
	snprintf(values, sizeof values, "%s.values", image);
	f = fopen(values, "r");
	TH_CHECK(f != NULL);
	for (int i = 0; f && i < NL; i++)
		TH_EQ(fscanf(f, "%lf", &ar[i]), 1);
	if (f)
		fclose(f);
	for (int i = 0; i < NL; i++)
		printf("%-52s kernel replay %16.2f  application replay %16.2f\n", list[i], kr[i], ar[i]);
	for (int i = 0; i < NCOUNTERS; i++)
		TH_EQ(ar[i], kr[i]);
	TH_EQ(ar[1], (double)KERNELS * TG_BLOCKS * TG_THREADS * TG_ITERS);
	TH_CHECK(kr[3] > 0 && ar[3] > 0.9 * kr[3] && ar[3] < 1.1 * kr[3]);
	unlink(image);
	unlink(values);
	return th_done();
}

int main(int argc, char **argv)
{
	int rc = gpu_test_start();

	if (rc)
		return rc;
	rc = argc == 4 && !strcmp(argv[1], "pass") ? one_pass(atoi(argv[2]), argv[3]) : driver("/proc/self/exe");
	PAPI_shutdown();
	return rc;
}
