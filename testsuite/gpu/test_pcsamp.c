/*
 * test_pcsamp.c - PC sampling (tally_gpu_pcsampling_*) on two kernels with
 * one known hot loop each, built with -lineinfo (pcsamp_kernels.cu):
 *   pcs_fma    dependent FMA chain, one warp per SM sub-partition: the
 *              warps wait on a fixed-latency dependency ("wait");
 *   pcs_chase  dependent loads through a random cycle 5x the L2: the
 *              warps wait on memory ("long_scoreboard").
 * Checks, per kernel: >= 90% of its samples on the hot loop's lines, the
 * hottest line inside the loop, the dominant stall reason, the sample
 * count against clock64 cycles / 2^period per SM, no dropped samples;
 * paused sampling collects nothing; in kernel-serialized mode samples go
 * to the right launch by correlation id (2x iterations -> ~2x samples).
 * "plain": the same kernels without Tally (for ncu).  "bench": wall time of
 * 100 launches unprofiled and under continuous sampling.  "stress P BYTES":
 * period 2^P with a BYTES hardware buffer, losses reported.  Else: period.
 * Prints "PCS ..." lines that run_device_checks.sh keeps.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tharness.h"
#include "tally.h"
#include "pcsamp_kernels.h"
#include "gpu_present.h"

#define FMA_ITERS 1000000
#define CHASE_STEPS 40000
#define CHASE_WORDS (64u << 20)   /* 256 MiB */
#define MAXLINE 1024
#define NS TALLY_GPU_PCSAMP_MAX_STALLS

struct kstat {
	const char *fn;         /* part of the mangled name */
	int lo, hi;             /* hot loop lines (from CMake) */
	int64_t cyc_max, cyc_sum;
	uint64_t samples, in_loop, no_line, line[MAXLINE], stall[NS];
	uint64_t (*lstall)[NS]; /* per line and reason */
	int bad_sum;            /* records whose stall sum != samples */
};

static uint64_t lstall[2][MAXLINE][NS];
static char rname[NS][128];     /* stall reason names */
static int counted[NS];         /* not a "_not_issued" subset */
static int nst;

static struct kstat ks[2] = {
	{ .fn = "pcs_fma", .lo = PCS_FMA_BEGIN, .hi = PCS_FMA_END, .lstall = lstall[0] },
	{ .fn = "pcs_chase", .lo = PCS_CHASE_BEGIN, .hi = PCS_CHASE_END, .lstall = lstall[1] },
};

static int on_rec(const tally_gpu_pc_sample_t *s, void *ud)
{
	uint64_t sum = 0;

	(void)ud;
	for (int k = 0; k < 2; k++) {
		struct kstat *q = &ks[k];
		size_t fl = s->file ? strlen(s->file) : 0;
		int ours = fl >= 17 && !strcmp(s->file + fl - 17, "pcsamp_kernels.cu");

		if (!strstr(s->function, q->fn))
			continue;
		for (int i = 0; i < s->num_stalls && i < NS; i++) {
			q->stall[i] += s->stall[i];
			sum += counted[i] ? s->stall[i] : 0;
			if (ours && s->line < MAXLINE)
				q->lstall[s->line][i] += s->stall[i];
		}
		q->bad_sum += sum != s->samples;
		q->samples += s->samples;
		if (!ours || s->line == 0 || s->line >= MAXLINE)
			q->no_line += s->samples;
		else
			q->line[s->line] += s->samples;
		if (ours && (int)s->line >= q->lo && (int)s->line <= q->hi)
			q->in_loop += s->samples;
	}
	return 0;
}

static int top_of(const uint64_t *v, int n, int skip)
{
	int best = -1;

	for (int i = 0; i < n; i++)
		if (i != skip && counted[i] && (best < 0 || v[i] > v[best]))
			best = i;
	return best;
}

/* The breakdown by reason and the hottest lines, for the report and the
 * ncu cross-check (check_pcsamp_vs_ncu.py). */
static void print_kernel(const struct kstat *q)
{
	uint64_t done[MAXLINE] = { 0 };

	for (int i = 0; i < nst; i++)
		if (counted[i] && q->stall[i])
			printf("PCS %s stall %s %llu %.4f\n", q->fn, rname[i], (unsigned long long)q->stall[i],
			       (double)q->stall[i] / (double)q->samples);
	for (int k = 0; k < 5; k++) {
		int hot = 0;

		for (int l = 1; l < MAXLINE; l++)
			hot = q->line[l] > q->line[hot] && !done[l] ? l : hot;
		if (!hot || !q->line[hot])
			break;
		done[hot] = 1;
		printf("PCS %s line %d: %llu samples (%.2f%%), top stall %s\n", q->fn, hot,
		       (unsigned long long)q->line[hot], 100.0 * (double)q->line[hot] / (double)q->samples,
		       rname[top_of(q->lstall[hot], nst, -1)]);
	}
}

static void check_kernel(struct kstat *q, int period, const char *expect)
{
	int hot = 0, t0 = top_of(q->stall, nst, -1), t1 = top_of(q->stall, nst, t0);
	const char *name[2] = { rname[t0], rname[t1] };
	double expected = (double)q->cyc_sum / (double)(1ull << period);
	double loop = q->samples ? (double)q->in_loop / (double)q->samples : 0;

	for (int l = 1; l < MAXLINE; l++)
		hot = q->line[l] > q->line[hot] ? l : hot;
	printf("PCS %s: samples %llu, expected %.0f (sum over SMs of clock64 cycles %lld / 2^%d), ratio %.3f; "
	       "max block cycles %lld\n", q->fn, (unsigned long long)q->samples, expected, (long long)q->cyc_sum,
	       period, expected > 0 ? (double)q->samples / expected : 0, (long long)q->cyc_max);
	printf("PCS %s: hot loop lines %d-%d: %.2f%% of samples; hottest line %d (%llu); without line %llu\n",
	       q->fn, q->lo, q->hi, 100 * loop, hot, (unsigned long long)q->line[hot],
	       (unsigned long long)q->no_line);
	printf("PCS %s: top stalls %s %.1f%%, %s %.1f%%\n", q->fn, name[0],
	       100.0 * (double)q->stall[t0] / (double)(q->samples ? q->samples : 1), name[1],
	       100.0 * (double)q->stall[t1] / (double)(q->samples ? q->samples : 1));
	print_kernel(q);
	TH_CHECK(q->samples > 0);
	TH_CHECK(loop >= 0.90);
	TH_CHECK(hot >= q->lo && hot <= q->hi);
	TH_EQ(q->bad_sum, 0);
	TH_CHECK(strstr(name[0], expect) != NULL);
	/* One sample per SM per period while its warps are resident (measured
	 * on the H100: within 0.02%). */
	TH_NEAR((double)q->samples, expected, 0.01);
}

static uint32_t corr[2];
static int ncorr;

static uint64_t hook(const tally_gpu_launch_t *l, void *ud)
{
	(void)ud;
	if (l->phase && strstr(l->mangled ? l->mangled : "", "pcs_fma") && ncorr < 2)
		corr[ncorr++] = l->correlation_id;
	return 0;
}

struct corr_sum {
	uint64_t s[3];   /* corr[0], corr[1], other */
	int named;       /* records whose kernel name is pcs_fma */
};

static int on_corr(const tally_gpu_pc_sample_t *s, void *ud)
{
	struct corr_sum *c = ud;
	int k = s->correlation_id == corr[0] ? 0 : s->correlation_id == corr[1] ? 1 : 2;

	c->s[k] += s->samples;
	c->named += strncmp(s->kernel, "pcs_fma", 7) == 0;
	return 0;
}

/* Kernel-serialized: two launches, the second with twice the work. */
static void serialized(int period)
{
	tally_gpu_pcsampling_config_t cfg = { .size = sizeof cfg };
	struct corr_sum c = { { 0, 0, 0 }, 0 };

	cfg.mode = TALLY_GPU_PCSAMP_SERIALIZED;
	cfg.period = period;
	TH_EQ(tally_gpu_set_launch_hook(hook, NULL), PAPI_OK);
	TH_EQ(tally_gpu_pcsampling_reset(NULL), PAPI_OK);
	TH_EQ(tally_gpu_pcsampling_enable(NULL, &cfg), PAPI_OK);
	TH_EQ(pk_fma_async(FMA_ITERS / 4) | pk_fma_async(FMA_ITERS / 2) | pk_sync(), 0);
	TH_EQ(tally_gpu_pcsampling_disable(NULL), PAPI_OK);
	tally_gpu_set_launch_hook(NULL, NULL);
	TH_EQ(ncorr, 2);
	TH_EQ(tally_gpu_pcsampling_read(NULL, on_corr, &c), PAPI_OK);
	printf("PCS serialized: corr %u: %llu samples, corr %u: %llu, other: %llu, ratio %.3f\n", corr[0],
	       (unsigned long long)c.s[0], corr[1], (unsigned long long)c.s[1], (unsigned long long)c.s[2],
	       c.s[0] ? (double)c.s[1] / (double)c.s[0] : 0);
	TH_CHECK(c.s[0] > 0 && c.s[1] > 0);
	TH_EQ(c.s[2], 0);
	TH_CHECK(c.named > 0);
	TH_NEAR((double)c.s[1] / (double)(c.s[0] ? c.s[0] : 1), 2.0, 0.05);
}

static double hundred(void)
{
	double t = th_now_s();

	for (int i = 0; i < 100; i++)
		pk_fma_async(FMA_ITERS / 100);
	pk_sync();
	return th_now_s() - t;
}

/* Continuous-mode overhead: 100 launches, unprofiled then sampled. */
static int bench(int period)
{
	tally_gpu_pcsampling_config_t cfg = { .size = sizeof cfg };
	tally_gpu_pcsampling_stats_t st = { .size = sizeof st };
	double t0, t1;

	hundred();
	t0 = hundred();
	cfg.period = period;
	TH_EQ(tally_gpu_pcsampling_enable(NULL, &cfg), PAPI_OK);
	t1 = hundred();
	TH_EQ(tally_gpu_pcsampling_disable(NULL), PAPI_OK);
	TH_EQ(tally_gpu_pcsampling_get_stats(NULL, &st), PAPI_OK);
	printf("PCS bench: 100 launches: unprofiled %.4f s, continuous sampling 2^%d %.4f s, ratio %.3f; "
	       "samples %llu, dropped %llu\n", t0, period, t1, t1 / t0, (unsigned long long)st.total_samples,
	       (unsigned long long)st.dropped_samples);
	return th_done();
}

/* A short period and a small hardware buffer: what is lost is reported. */
static int stress(int period, size_t hw)
{
	tally_gpu_pcsampling_config_t cfg = { .size = sizeof cfg };
	tally_gpu_pcsampling_stats_t st = { .size = sizeof st };
	int64_t a, b;

	cfg.period = period;
	cfg.hw_bytes = hw;
	TH_EQ(tally_gpu_pcsampling_enable(NULL, &cfg), PAPI_OK);
	TH_CHECK(pk_fma(FMA_ITERS / 10, &a) > 0 && pk_chase(CHASE_STEPS / 10, &b) > 0);
	/* Losses are reported in the stats, not as errors. */
	TH_EQ(tally_gpu_pcsampling_disable(NULL), PAPI_OK);
	TH_EQ(tally_gpu_pcsampling_get_stats(NULL, &st), PAPI_OK);
	printf("PCS stress: period 2^%d, hw buffer %zu: total %llu, in records %llu, dropped %llu, "
	       "hw-buffer-full %llu, drains %llu, records %llu\n", period, hw, (unsigned long long)st.total_samples,
	       (unsigned long long)st.record_samples, (unsigned long long)st.dropped_samples,
	       (unsigned long long)st.hw_buffer_full, (unsigned long long)st.drains,
	       (unsigned long long)st.num_records);
	/* Either every sample is accounted for or the loss is reported. */
	TH_CHECK(st.hw_buffer_full > 0 || st.dropped_samples > 0 ||
		 (st.total_samples > 0 && st.record_samples + st.nonuser_samples == st.total_samples));
	return th_done();
}

static int setup(int argc, char **argv)
{
	char why[512] = "";
	int cidx, gpu = gpu_present(why, sizeof why);
	const PAPI_component_info_t *ci;

	if (gpu <= 0) {
		printf("%s: %s\n", gpu ? "FAIL" : "SKIP", why);
		return gpu ? 1 : 77;
	}
	if (argc > 1 && !strcmp(argv[1], "plain")) {
		int64_t s;

		if (pk_init(CHASE_WORDS) != 0)
			return 1;
		return pk_fma(FMA_ITERS, &s) < 0 || pk_chase(CHASE_STEPS, &s) < 0;
	}
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
		printf("FAIL: PAPI_library_init\n");
		return 1;
	}
	cidx = PAPI_get_component_index("cuda");
	ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
	if (!ci || ci->disabled) {
		printf("FAIL: a GPU is here but the cuda component is disabled: %s\n",
		       ci ? ci->disabled_reason : "not built");
		return 1;
	}
	if (pk_init(CHASE_WORDS) != 0) {
		printf("FAIL: a GPU is here but the test kernels cannot run on it\n");
		return 1;
	}
	return -1;
}

int main(int argc, char **argv)
{
	tally_gpu_pcsampling_config_t cfg = { .size = sizeof cfg };
	tally_gpu_pcsampling_stats_t st = { .size = sizeof st };
	int period = argc > 1 ? atoi(argv[1]) : 16, rc = setup(argc, argv);
	int64_t s;

	if (rc >= 0)
		return rc;
	if (argc > 2 && !strcmp(argv[1], "bench"))
		return bench(atoi(argv[2]));
	if (argc > 3 && !strcmp(argv[1], "stress"))
		return stress(atoi(argv[2]), (size_t)strtoull(argv[3], NULL, 0));
	cfg.period = period;
	cfg.start_paused = 1;
	rc = tally_gpu_pcsampling_enable(NULL, &cfg);
	if (rc == PAPI_ENOSUPP) {
		printf("SKIP: PC sampling unavailable: %s\n", PAPI_strerror(rc));
		return 77;
	}
	if (rc != PAPI_OK)
		PAPI_perror("tally_gpu_pcsampling_enable");
	TH_EQ(rc, PAPI_OK);
	/* Paused: nothing is collected. */
	TH_CHECK(pk_fma(FMA_ITERS, &s) > 0);
	TH_EQ(tally_gpu_pcsampling_flush(NULL), PAPI_OK);
	TH_EQ(tally_gpu_pcsampling_get_stats(NULL, &st), PAPI_OK);
	printf("PCS paused: %llu samples, %lld cycles unprofiled\n", (unsigned long long)st.total_samples, (long long)s);
	TH_EQ(st.total_samples, 0);
	TH_EQ(tally_gpu_pcsampling_start(NULL), PAPI_OK);
	ks[0].cyc_max = pk_fma(FMA_ITERS, &ks[0].cyc_sum);
	ks[1].cyc_max = pk_chase(CHASE_STEPS, &ks[1].cyc_sum);
	TH_EQ(tally_gpu_pcsampling_disable(NULL), PAPI_OK);
	TH_EQ(tally_gpu_pcsampling_get_stats(NULL, &st), PAPI_OK);
	TH_EQ(tally_gpu_pcsampling_num_stall_reasons(NULL, &nst), PAPI_OK);
	printf("PCS stats: period 2^%d, %d stall reasons, total %llu, in records %llu, dropped %llu, non-user %llu, "
	       "hw-buffer-full %llu, drains %llu, records %llu, cubins %llu, lost %llu\n", st.period, nst,
	       (unsigned long long)st.total_samples, (unsigned long long)st.record_samples,
	       (unsigned long long)st.dropped_samples, (unsigned long long)st.nonuser_samples,
	       (unsigned long long)st.hw_buffer_full, (unsigned long long)st.drains,
	       (unsigned long long)st.num_records, (unsigned long long)st.cubins, (unsigned long long)st.lost_records);
	TH_EQ(st.period, period);
	TH_EQ(st.dropped_samples, 0);
	TH_EQ(st.hw_buffer_full, 0);
	/* Every sample lands in a record (all reasons selected). */
	TH_NEAR((double)(st.record_samples + st.nonuser_samples + st.dropped_samples), (double)st.total_samples, 1e-4);
	for (int i = 0; i < nst && i < NS; i++) {
		size_t l;

		TH_EQ(tally_gpu_pcsampling_stall_reason(NULL, i, rname[i], sizeof rname[i], NULL), PAPI_OK);
		l = strlen(rname[i]);
		counted[i] = !(l > 11 && !strcmp(rname[i] + l - 11, "_not_issued"));
	}
	TH_CHECK(st.cubins >= 1);
	TH_EQ(tally_gpu_pcsampling_read(NULL, on_rec, NULL), PAPI_OK);
	check_kernel(&ks[0], period, "_stalled_wait");
	check_kernel(&ks[1], period, "_stalled_long_scoreboard");
	serialized(period);
	TH_EQ(tally_gpu_pcsampling_reset(NULL), PAPI_OK);
	PAPI_shutdown();
	return th_done();
}
