/*
 * gpu_rt.c - per-kernel GPU metrics under the runtime.  At the start the
 * metric list is parsed and its GPU pass schedule made (without choosing
 * a GPU); each CUDA context is bound at its first launch (gpu_bind.c),
 * where all metric groups of the list are enabled at once in kernel
 * collection mode (with kernel replay when the list needs several
 * passes), so the profiler produces one range per kernel, in launch order.
 * The launch hook records each launch (thread, region) per context in the
 * same order; at the end the k-th range of a context is matched to its
 * k-th launch and the values are folded per kernel (gpu_collect.c).
 */
#include "gpu/gpu_rt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tally_shared.h"
#include "runtime/rt_parts.h"
#include "runtime/rt_sched.h"
#include "tally_gpu.h"
#include "gpu/gpu_bind.h"
#include "gpu/gpu_collect.h"
#include "gpu/gpu_marks.h"
#include "gpu/gpu_scope.h"
#include "gpu/gpu_start.h"
#include "gpu/gpu_state.h"

/* Made at the start, on one thread, before the launch hook is set; the
 * state the other files share is gpu_state.c's. */
static struct {
	int n;
	tally_gpu_event_t ids[TLY_GPU_MAX_METRICS];
	tally_gpu_group_sets_t *sets;   /* the schedule's (never enabled) */
	struct tly_gpu_plan plan;
	const struct tly_rt_sched_view *job;   /* the passes' schedules (rt_sched.h) */
} gs;

/* The component's detail sentence, else the code's text. */
static const char *why(int rc)
{
	const char *d = tly_err_detail();

	return d && *d ? d : PAPI_strerror(rc);
}

/* A program without MPI_Finalize (a serial program, a Python script)
 * ends in exit(); the runtime's exit handler was registered at load, so
 * it runs after the CUDA runtime's, which has destroyed the context and
 * its profiler data by then.  A handler registered at the first launch
 * (after the CUDA runtime's own) harvests the values while the context
 * lives; the writer then finds them collected. */
static void harvest_at_exit(void)
{
	int64_t n;
	int replay;

	if (!tly_rt_proc()->finished)
		tly_gpu_rt_collect(&n, &replay);
}

static _Atomic(void (*)(uint32_t)) launch_observer;

void tly_gpu_rt_launch_observer(void (*fn)(uint32_t correlation_id))
{
	atomic_store(&launch_observer, fn);
}

static uint64_t on_launch(const tally_gpu_launch_t *l, void *ud)
{
	static atomic_int exit_hook;
	void (*observe)(uint32_t) = atomic_load(&launch_observer);
	struct tly_rt_thread *t;
	struct tly_gpu_bind *b;

	(void)ud;
	if (l->phase == 0 && observe)
		observe(l->correlation_id);
	if (l->phase == 0 && tly_gpu_start_wait() != 0)
		tly_rt_log(1, "the GPU profiler's start has not ended after a minute: kernel '%s' launched without it",
			   l->name ? l->name : "?");
	if (l->phase == 0) {
		tly_gpu_bind_launch(l);   /* a new context is bound before its first kernel runs */
		tly_gpu_rt_mark_launch();
	}
	if (l->phase == 1 && !atomic_load_explicit(&exit_hook, memory_order_relaxed) && !atomic_exchange(&exit_hook, 1))
		atexit(harvest_at_exit);
	if (l->phase != 1 || !(b = tly_gpu_bind_find(l->context_uid)))
		return 0;
	/* before gpu_state.c's lock: a thread's first tly_rt_self enters its
	 * root region, whose region change (marks, values per region) takes
	 * that lock; the other order hung PyTorch's autograd thread at its
	 * first launch */
	t = tly_rt_self();
	tly_gpu_state_launch(b, t, l->name);
	return 0;
}

/* "cuda:::<metric>[:device=<n>]" -> metric id (on the device the schedule
 * is made for); the first metric's device is the filter, else -1. */
static int parse(struct tly_rt_sched *s, const char *list)
{
	char name[TLY_RT_SCHED_NAME];

	gs.plan.filter = -1;
	for (const char *p = list; *p && gs.n < TLY_GPU_MAX_METRICS;) {
		size_t len = strcspn(p, ",");
		char *dev;
		int rc;

		snprintf(name, sizeof name, "%.*s", (int)(len - 7), p + 7);
		p += len + (p[len] == ',');
		dev = strstr(name, ":device=");
		if (dev) {
			if (!gs.n)
				gs.plan.filter = atoi(dev + 8);
			*dev = '\0';
		}
		rc = tally_gpu_event_id(gs.plan.filter >= 0 ? gs.plan.filter : 0, name, &gs.ids[gs.n]);
		if (rc != PAPI_OK) {
			tly_rt_log(1, "GPU metric '%s' left out: %s", name, why(rc));
			continue;
		}
		snprintf(gs.plan.names[gs.n], sizeof gs.plan.names[gs.n], "%s", name);
		snprintf(s->names[gs.n++], TLY_RT_SCHED_NAME, "cuda:::%s", name);
	}
	s->nev = gs.n;
	gs.plan.n = gs.n;
	return gs.n;
}

/* A group that alone needs several passes (its set cannot run alone). */
static int has_multipass_group(const tally_gpu_group_sets_t *sets)
{
	for (int k = 0; k < sets->num_sets; k++)
		for (int g = 0; g < sets->sets[k].num_groups; g++) {
			int passes = 1;
			size_t sz = sizeof passes;

			if (tally_gpu_group_get_attr(sets->sets[k].groups[g], TALLY_GPU_GROUP_ATTR_PASSES, &passes, &sz)
				    == PAPI_OK && passes > 1)
				return 1;
		}
	return 0;
}

/* The GPU schedule: pass of each metric from the group sets. */
static void schedule(struct tly_rt_sched *s)
{
	tally_gpu_device_info_t di = { .size = sizeof di };

	for (int k = gs.sets->num_sets - 1; k >= 0; k--)
		for (int g = 0; g < gs.sets->sets[k].num_groups; g++) {
			tally_gpu_event_t ev[TALLY_GPU_GROUP_MAX_EVENTS];
			size_t sz = sizeof ev;
			int n = 0;
			size_t nsz = sizeof n;

			tally_gpu_group_get_attr(gs.sets->sets[k].groups[g], TALLY_GPU_GROUP_ATTR_NUM_EVENTS, &n, &nsz);
			tally_gpu_group_get_attr(gs.sets->sets[k].groups[g], TALLY_GPU_GROUP_ATTR_EVENTS, ev, &sz);
			for (int e = 0; e < n; e++)
				for (int i = 0; i < gs.n; i++)
					if (gs.ids[i] == ev[e])
						s->pass_of[i] = k;
		}
	s->npasses = gs.sets->num_sets;
	s->gpu = 1;
	s->extra_hash = (uint64_t)gs.sets->host_passes;
	/* the mode belongs to the schedule: a rank that cannot profile (a
	 * shared GPU) still records the job's mode */
	gs.plan.pass = gs.job->replay_index();
	gs.plan.num_sets = gs.sets->num_sets;
	gs.plan.host_passes = gs.sets->host_passes;
	*gs.job->gpu_replay = gs.plan.pass >= 0 && gs.sets->num_sets > 1;
	gs.plan.image = *gs.job->gpu_replay && has_multipass_group(gs.sets);
	*gs.job->gpu_image = gs.plan.image;
	if (tally_gpu_device_info(gs.plan.filter >= 0 ? gs.plan.filter : 0, &di) == PAPI_OK)
		snprintf(s->device, sizeof s->device, "%s", di.chip);
	gs.job->hash(s);
}

/* TALLY_CUDA_GRANULARITY=region, where the list allows it (one pass). */
static int by_region(void)
{
	const char *g = tly_rt_proc()->opt.raw.cuda_granularity;

	if (!strcmp(g, "region")) {
		if (!gs.plan.replay)
			return 1;
		tly_rt_log(1, "TALLY_CUDA_GRANULARITY=region: the GPU metrics need %d passes (kernel replay); "
			   "values per kernel instead", gs.sets->host_passes);
	} else if (strcmp(g, "kernel")) {
		tly_rt_log(1, "TALLY_CUDA_GRANULARITY=%s: expected 'kernel' or 'region'; 'kernel' is used", g);
	}
	return 0;
}

/* The job's mode for every context: 0, or -1 when nothing can be collected. */
static int plan_modes(void)
{
	if (*gs.job->gpu_replay)
		return 0;   /* application replay: one set per run, or images */
	gs.plan.replay = gs.sets->host_passes > 1;
	if (gs.plan.replay && !strcmp(tly_rt_proc()->opt.raw.pass_mode, "off")) {
		tly_rt_log(1, "the GPU metrics need %d passes and TALLY_PASS_MODE=off; no GPU data",
			   gs.sets->host_passes);
		return -1;
	}
	gs.plan.ranges = by_region();
	return 0;
}

/* Metric ids, group sets and the schedule; 0 when there is nothing to do.
 * The schedule's group sets are made on the current context, else on the
 * device the metrics name (0 when none): only the chip matters. */
static int prepare(struct tly_rt_sched *s)
{
	const char *list = gs.job->gpu_list;
	int rc;

	if (!*list || gs.sets || !parse(s, list))
		return 0;
	rc = tally_gpu_group_sets_create(NULL, gs.ids, gs.n, &gs.sets);
	if (rc != PAPI_OK) {
		tly_rt_log(1, "GPU metrics not collected: %s", why(rc));
		s->nev = 0;
		return 0;
	}
	schedule(s);
	return 1;
}

/* TALLY_CUPTI=app: CUPTI is left to the application's own tool.  The
 * setting is a choice: another word was said and replaced by the default
 * where the settings were read. */
static int cupti_left_to_app(void)
{
	return !strcmp(tly_rt_proc()->opt.raw.cupti, "app");
}

void tly_gpu_rt_start(void *comm_ptr)
{
	const struct tly_rt_sched_view *job = tly_rt_parts_sched();
	struct tly_rt_sched *s;
	int yield, rc;

	(void)comm_ptr;   /* GPUs are claimed per physical GPU, at binding (gpu_share.c) */
	tly_gpu_scope_register();   /* NCCL's calls in the process's region, metrics or not */
	if (!job)
		return;   /* no passes part: no GPU metrics taken out of TALLY_EVENTS */
	gs.job = job;
	s = job->gpu;
	yield = *job->gpu_list && cupti_left_to_app();
	if (yield) {
		tly_rt_log(1, "GPU metrics off: TALLY_CUPTI=app leaves CUPTI to the application's own tool");
		return;
	}
	if (!prepare(s) || plan_modes() != 0)
		return;
	tly_gpu_scope_start();
	tly_gpu_state_plan(&gs.plan);
	tly_gpu_bind_plan(&gs.plan);
	rc = tally_gpu_set_launch_hook(on_launch, NULL);
	/* said at verbose level only: with no other CUPTI tool it is noise */
	if (tally_gpu_subscribed())
		tly_rt_log(2, "Tally holds CUPTI's subscription: an application's own CUPTI tool (torch.profiler, "
			   "Nsight) cannot subscribe; TALLY_CUPTI=app leaves CUPTI to it");
	if (rc == PAPI_OK && !gs.plan.ranges) {
		tly_rt_log(2, "%d GPU metric(s) in %d pass(es)%s: each CUDA context is bound at its first launch",
			   gs.n, gs.plan.num_sets, gs.plan.replay ? ", kernel replay" : "");
		return;
	}
	/* values per region, or no hook: the context current now (else the
	 * metrics' device's primary context) is profiled from the start */
	if (rc != PAPI_OK)
		tly_rt_log(1, "GPU kernels not attributed to threads and regions, and only the GPU current at the "
			   "start is profiled: %s", tally_gpu_subscriber_status());
	else
		tly_rt_log(2, "%d GPU metric(s) per region: the GPU current at the start (else device %d) is profiled",
			   gs.n, gs.plan.filter >= 0 ? gs.plan.filter : 0);
	tly_gpu_bind_now(gs.plan.filter >= 0 ? gs.plan.filter : 0);
	if (gs.plan.ranges) {
		int replay, ranges, on;

		tly_gpu_bind_modes(&replay, &ranges, &on);
		if (on) {
			tly_gpu_rt_marks_on();
			tly_gpu_rt_mark(tly_rt_self());
		}
	}
}

int tly_gpu_rt_ranges(void)
{
	return gs.plan.ranges;
}

int tly_gpu_rt_per_kernel(void)
{
	return gs.n > 0 && !gs.plan.ranges && tally_gpu_subscribed();
}

static void region_change(const struct tly_rt_thread *t)
{
	tly_gpu_scope_note(t);
	tly_gpu_rt_mark(t);
}

const struct tly_rt_part tly_rt_part_gpu = {
	.name = "gpu",
	.job_start = tly_gpu_rt_start,
	.region_change = region_change,
};
