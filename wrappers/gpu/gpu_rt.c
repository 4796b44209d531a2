/*
 * gpu_rt.c - per-kernel GPU metrics under the runtime.  All metric groups
 * of the list are enabled at once in kernel collection mode (with kernel
 * replay when the list needs several passes), so the profiler produces
 * one range per kernel, in launch order.  The launch hook records each
 * launch (thread, region) in the same order; at the end the k-th range is
 * matched to the k-th launch and the values are folded per kernel.
 */
#include "gpu/gpu_rt.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tally_shared.h"
#include "passes/passes.h"
#include "runtime/rt_parts.h"
#include "tally_gpu.h"


struct launch {
	const struct tly_rt_thread *t;
	int32_t node;
	const char *name;     /* whole name, interned in gs.kn */
};

static struct {
	pthread_mutex_t lock;
	int on, device, n, replay;
	int ranges;           /* region granularity (gpu_marks.c) */
	int pass;             /* application replay: this run's pass, else -1 */
	int image;            /* ... through saved counter data images */
	tally_gpu_event_t ids[TLY_GPU_MAX_METRICS];
	tally_gpu_group_sets_t *sets;
	struct launch *l;
	int64_t nl, cap;
	char **kn;            /* distinct kernel names (kept to the end) */
	int64_t nkn, capkn;
	struct tly_gpu_kstat *ks;
	int64_t nks;
} gs = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The component's detail sentence, else the code's text. */
static const char *why(int rc)
{
	const char *d = tly_err_detail();

	return d && *d ? d : PAPI_strerror(rc);
}

/* The interned copy of a kernel name (launches repeat a few kernels);
 * NULL when out of memory.  Called with gs.lock held. */
static const char *intern(const char *name)
{
	char *c;

	for (int64_t i = gs.nkn; i-- > 0;)
		if (!strcmp(gs.kn[i], name))
			return gs.kn[i];
	if (gs.nkn == gs.capkn) {
		int64_t cap = gs.capkn ? 2 * gs.capkn : 64;
		char **m = realloc(gs.kn, (size_t)cap * sizeof *gs.kn);

		if (!m)
			return NULL;
		gs.kn = m;
		gs.capkn = cap;
	}
	if (!(c = strdup(name)))
		return NULL;
	gs.kn[gs.nkn++] = c;
	return c;
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

static uint64_t on_launch(const tally_gpu_launch_t *l, void *ud)
{
	static atomic_int exit_hook;
	struct tly_rt_thread *t;
	struct launch *x;

	(void)ud;
	if (l->phase == 0 && tly_gpu_start_wait() != 0)
		tly_rt_log(1, "the GPU profiler's start has not ended after a minute: kernel '%s' launched without it",
			   l->name ? l->name : "?");
	if (l->phase == 0)
		tly_gpu_rt_mark_launch();
	if (l->phase == 1 && !atomic_exchange(&exit_hook, 1))
		atexit(harvest_at_exit);
	if (l->phase != 1 || !(t = tly_rt_self()))
		return 0;
	pthread_mutex_lock(&gs.lock);
	if (gs.nl == gs.cap) {
		int64_t cap = gs.cap ? 2 * gs.cap : 256;
		void *m = realloc(gs.l, (size_t)cap * sizeof *gs.l);

		if (m) {
			gs.l = m;
			gs.cap = cap;
		}
	}
	if (gs.nl < gs.cap) {
		x = &gs.l[gs.nl++];
		x->t = t;
		x->node = t->depth ? t->stack[t->depth - 1].node : 0;
		x->name = intern(l->name ? l->name : "?");
		if (!x->name)
			x->name = "?";
	}
	pthread_mutex_unlock(&gs.lock);
	return 0;
}

/* "cuda:::<metric>[:device=<n>]" -> metric id; the device of the first. */
static int parse(struct tly_pass_sched *s, const char *list)
{
	char name[TLY_PASS_NAME];

	for (const char *p = list; *p && gs.n < TLY_GPU_MAX_METRICS;) {
		size_t len = strcspn(p, ",");
		char *dev;
		int rc;

		snprintf(name, sizeof name, "%.*s", (int)(len - 7), p + 7);
		p += len + (p[len] == ',');
		dev = strstr(name, ":device=");
		if (dev) {
			if (!gs.n)
				gs.device = atoi(dev + 8);
			*dev = '\0';
		}
		rc = tally_gpu_event_id(gs.device, name, &gs.ids[gs.n]);
		if (rc != PAPI_OK) {
			tly_rt_log(1, "GPU metric '%s' left out: %s", name, why(rc));
			continue;
		}
		snprintf(s->names[gs.n++], TLY_PASS_NAME, "cuda:::%s", name);
	}
	s->nev = gs.n;
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
static void schedule(struct tly_pass_sched *s)
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
	gs.pass = tly_pass_replay_index();
	tly_pass_state()->gpu_replay = gs.pass >= 0 && gs.sets->num_sets > 1;
	gs.image = tly_pass_state()->gpu_replay && has_multipass_group(gs.sets);
	tly_pass_state()->gpu_image = gs.image;
	if (tally_gpu_device_info(gs.device, &di) == PAPI_OK)
		snprintf(s->device, sizeof s->device, "%s", di.chip);
	tly_pass_hash(s);
}

/* Application replay (tally-run --passes): this run enables group set k
 * alone, in kernel collection mode without kernel replay (one pass); the
 * other runs of the job collect the other sets.  A set that cannot be
 * collected in one pass (a metric that needs several passes by itself)
 * is reported: application replay cannot collect it. */
static int enable_one_set(int k)
{
	tally_gpu_group_sets_t *sets = gs.sets;
	int rc;

	k %= sets->num_sets;
	rc = tally_gpu_set_collection_mode(NULL, TALLY_GPU_COLLECTION_KERNEL);
	if (rc == PAPI_OK)
		rc = tally_gpu_group_set_enable(&sets->sets[k]);
	if (rc != PAPI_OK) {
		tly_rt_log(1, "application replay: GPU pass %d not collected: %s (a metric that needs several "
			   "passes by itself needs kernel replay)", k, why(rc));
		return -1;
	}
	tly_rt_log(2, "application replay: GPU pass %d of %d", k, sets->num_sets);
	return 0;
}

/* Application replay of a list with a metric that needs several passes by
 * itself: every run enables the whole list at its pass (CUPTI user replay);
 * the counter data image goes from run to run through a file, and the run
 * of the last pass evaluates it (its file holds every metric). */
static int enable_image_pass(int k)
{
	const struct tly_rt_proc *p = tly_rt_proc();
	char path[600];
	int rc;

	if (!p->opt.raw.pass_image[0]) {
		tly_rt_log(1, "application replay: GPU metrics that need several passes by themselves need "
			   "TALLY_PASS_IMAGE (set by tally-run --passes); no GPU data");
		return -1;
	}
	snprintf(path, sizeof path, "%s.rank%d.cdata", p->opt.raw.pass_image, p->rank);
	rc = tally_gpu_user_replay_pass(NULL, k, path);
	if (rc == PAPI_OK)
		rc = tally_gpu_group_sets_enable_all(gs.sets);
	if (rc != PAPI_OK) {
		tly_rt_log(1, "application replay: GPU pass %d not collected: %s", k, why(rc));
		return -1;
	}
	tly_rt_log(2, "application replay: GPU pass %d of %d (counter data image %s%s)", k, gs.sets->host_passes,
		   path, k == gs.sets->host_passes - 1 ? ", evaluated in this run" : "");
	return 0;
}

/* TALLY_CUDA_GRANULARITY=region, where the list allows it (one pass). */
static int by_region(void)
{
	const char *g = tly_rt_proc()->opt.raw.cuda_granularity;

	if (!strcmp(g, "region")) {
		if (!gs.replay)
			return 1;
		tly_rt_log(1, "TALLY_CUDA_GRANULARITY=region: the GPU metrics need %d passes (kernel replay); "
			   "values per kernel instead", gs.sets->host_passes);
	} else if (strcmp(g, "kernel")) {
		tly_rt_log(1, "TALLY_CUDA_GRANULARITY=%s: expected 'kernel' or 'region'; 'kernel' is used", g);
	}
	return 0;
}

static int enable(void)
{
	const char *mode = tly_rt_proc()->opt.raw.pass_mode;
	int rc;

	if (gs.image)
		return enable_image_pass(gs.pass);
	if (tly_pass_state()->gpu_replay)
		return enable_one_set(gs.pass);
	gs.replay = gs.sets->host_passes > 1;
	if (gs.replay && !strcmp(mode, "off")) {
		tly_rt_log(1, "the GPU metrics need %d passes and TALLY_PASS_MODE=off; no GPU data",
			   gs.sets->host_passes);
		return -1;
	}
	if (gs.replay && (rc = tally_gpu_kernel_replay_enable(NULL)) != PAPI_OK)
		goto fail;
	gs.ranges = by_region();
	if (gs.ranges && (rc = tally_gpu_set_collection_mode(NULL, TALLY_GPU_COLLECTION_RANGES)) != PAPI_OK)
		goto fail;
	if ((rc = tally_gpu_group_sets_enable_all(gs.sets)) != PAPI_OK)
		goto fail;
	return 0;
fail:
	tly_rt_log(1, "GPU metrics not collected: %s%s", why(rc), strstr(why(rc), "HARDWARE_BUSY") ?
		   " (another process, e.g. a rank sharing this GPU, is profiling it: give each rank its own GPU)" : "");
	return -1;
}

/* Metric ids, group sets and the schedule; 0 when there is nothing to do. */
static int prepare(struct tly_pass_sched *s)
{
	const char *list = tly_pass_gpu_list();
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

/* Enable the metrics; on success values are collected (gs.on).  Runs in
 * the background thread (gpu_start.c) or inline; t: the starting thread. */
static void start_session(void *t)
{
	if (enable() < 0) {
		tally_gpu_set_launch_hook(NULL, NULL);
		return;
	}
	pthread_mutex_lock(&gs.lock);
	gs.on = 1;
	pthread_mutex_unlock(&gs.lock);
	if (gs.ranges) {
		tly_gpu_rt_marks_on();
		tly_gpu_rt_mark(t);   /* the first range: the starting thread's region */
	}
	tly_rt_log(2, "%d GPU metric(s) in %d pass(es)%s%s", gs.n, tly_pass_state()->gpu.npasses,
		   gs.replay ? ", kernel replay" : "", gs.ranges ? ", values per region" : "");
}

/* The device of the list's first metric ("cuda:::<metric>:device=<n>"). */
static int first_device(const char *list)
{
	const char *dev = strstr(list, ":device=");
	size_t first = strcspn(list, ",");

	return dev && (size_t)(dev - list) < first ? atoi(dev + 8) : 0;
}

void tly_gpu_rt_start(void *comm_ptr)
{
	struct tly_pass_sched *s = &tly_pass_state()->gpu;
	int yield = *tly_pass_gpu_list() && cupti_left_to_app();
	int ready, owner, rc;

	/* the context the metrics need is made while CUPTI initialises */
	if (*tly_pass_gpu_list() && !yield && !gs.sets)
		(void)tally_gpu_context_warm(first_device(tly_pass_gpu_list()));
	ready = !yield && prepare(s);
	owner = tly_gpu_share_owner(comm_ptr, gs.device, ready);

	if (yield)
		tly_rt_log(1, "GPU metrics off: TALLY_CUPTI=app leaves CUPTI to the application's own tool");

	if (!ready)
		return;
	if (owner != tly_rt_proc()->rank) {
		tly_rt_log(1, "GPU %d is shared with rank %d, which profiles it (a GPU's counters serve one "
			   "process at a time): no GPU metrics on this rank; give each rank its own GPU",
			   gs.device, owner);
		return;
	}
	/* the hook first: a launch during a background start waits for it */
	rc = tally_gpu_set_launch_hook(on_launch, NULL);
	if (rc != PAPI_OK)
		tly_rt_log(1, "GPU kernels not attributed to threads and regions: %s", tally_gpu_subscriber_status());
	if (!strcmp(tly_rt_proc()->opt.raw.cuda_start, "background") &&
	    tly_gpu_start_background(start_session, tly_rt_self()) == 0)
		tly_rt_log(2, "GPU profiler session starting in the background");
	else
		start_session(tly_rt_self());
	if (tally_gpu_subscribed())
		tly_rt_log(1, "Tally holds CUPTI's subscription: an application's own CUPTI tool (torch.profiler, "
			   "Nsight) cannot subscribe; TALLY_CUPTI=app leaves CUPTI to it");
}

void tly_gpu_rt_view(struct tly_gpu_view *v)
{
	pthread_mutex_lock(&gs.lock);
	*v = (struct tly_gpu_view){ .on = gs.on, .device = gs.device, .n = gs.n, .replay = gs.replay,
				    .ranges = gs.ranges,
				    .image_pass = gs.image ? gs.pass : -1,
				    .image_last = gs.image && gs.pass == gs.sets->host_passes - 1,
				    .ids = gs.ids, .sets = gs.sets, .nl = gs.nl, .ks = &gs.ks, .nks = &gs.nks };
	pthread_mutex_unlock(&gs.lock);
}

const char *tly_gpu_rt_launch(int64_t k, const struct tly_rt_thread **t, int32_t *node)
{
	*t = gs.l[k].t;
	*node = gs.l[k].node;
	return gs.l[k].name;
}

const struct tly_rt_part tly_rt_part_gpu = {
	.name = "gpu",
	.job_start = tly_gpu_rt_start,
	.region_change = tly_gpu_rt_mark,
};
