/*
 * gpu_bind.c - the GPU a process measures is the one it uses.  Nothing is
 * bound when the runtime starts: each CUDA context is bound at its first
 * kernel launch (the launch hook's entry, before the kernel is submitted),
 * on the device the program chose by then -- cudaSetDevice after MPI_Init,
 * torch.cuda.set_device(LOCAL_RANK), CUDA_VISIBLE_DEVICES of a launcher, or
 * several devices from one process.  Binding a context:
 *   - :device=N (the first metric's) keeps only contexts of device N;
 *   - the physical GPU (by UUID) is claimed for this process (gpu_share.c):
 *     a second process on the same GPU is told once, with the UUID and the
 *     rank that profiles it, and collects nothing there;
 *   - the metric list's group sets are made on the context and enabled in
 *     the job's mode (kernel replay, application replay of one set or
 *     through counter data images, one pass per kernel or per region).
 * A per-kernel session is started on a thread of Tally's own while the
 * launching thread waits in the launch callback (as TALLY_CUDA_START=
 * background did for the one context of earlier versions; the wait is
 * bounded).  Values per region (TALLY_CUDA_GRANULARITY=region) are the
 * exception: their session starts with the runtime, on the context
 * current then (else the device the metrics name, else 0), and only that
 * context is profiled (the way the earlier versions did it, validated on
 * the H100; a lazily bound ranges session was not).
 */
#include "gpu/gpu_bind.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tally_shared.h"
#include "runtime/rt_parts.h"
#include "gpu/gpu_marks.h"
#include "gpu/gpu_share.h"
#include "gpu/gpu_start.h"

static struct {
	pthread_mutex_t lock;        /* serialises new bindings (a start takes ~1 s) */
	struct tly_gpu_plan plan;
	struct tly_gpu_bind b[TLY_GPU_MAX_BINDS];
	atomic_int nb;
	atomic_int on, marks;
	int full_said;
} bd = { .lock = PTHREAD_MUTEX_INITIALIZER };

void tly_gpu_bind_plan(const struct tly_gpu_plan *p)
{
	pthread_mutex_lock(&bd.lock);
	bd.plan = *p;
	pthread_mutex_unlock(&bd.lock);
}

void tly_gpu_bind_modes(int *replay, int *ranges, int *on)
{
	*replay = bd.plan.replay;
	*ranges = bd.plan.ranges;
	*on = atomic_load(&bd.on);
}

struct tly_gpu_bind *tly_gpu_bind_all(int *n)
{
	*n = atomic_load_explicit(&bd.nb, memory_order_acquire);
	return bd.b;
}

struct tly_gpu_bind *tly_gpu_bind_find(uint32_t uid)
{
	int n = atomic_load_explicit(&bd.nb, memory_order_acquire);

	for (int i = 0; i < n; i++)
		if (bd.b[i].uid == uid)
			return &bd.b[i];
	return NULL;
}

/* The component's detail sentence, else the code's text. */
static const char *why(int rc)
{
	const char *d = tly_err_detail();

	return d && *d ? d : PAPI_strerror(rc);
}

/* Application replay through images: the pass's counter data image file
 * of this rank and GPU (tally-run removes <image>.rank*.cdata). */
static int image_pass(struct tly_gpu_bind *b)
{
	const struct tly_rt_proc *p = tly_rt_proc();
	char path[640];
	int rc;

	if (!p->opt.raw.pass_image[0]) {
		tly_rt_log(1, "application replay: GPU metrics that need several passes by themselves need "
			   "TALLY_PASS_IMAGE (set by tally-run --passes); no GPU data");
		return PAPI_EINVAL;
	}
	snprintf(path, sizeof path, "%s.rank%d.gpu%d.cdata", p->opt.raw.pass_image, p->rank, b->device);
	rc = tally_gpu_user_replay_pass(b->ctx, bd.plan.pass, path);
	if (rc == PAPI_OK)
		rc = tally_gpu_group_sets_enable_all(b->sets);
	if (rc == PAPI_OK)
		tly_rt_log(2, "application replay: GPU %d, pass %d of %d (counter data image %s%s)", b->device,
			   bd.plan.pass, bd.plan.host_passes, path,
			   bd.plan.pass == bd.plan.host_passes - 1 ? ", evaluated in this run" : "");
	return rc;
}

/* The sets of b enabled in the job's mode. */
static int enable_mode(struct tly_gpu_bind *b)
{
	const struct tly_gpu_plan *pl = &bd.plan;
	int rc;

	if (pl->image)
		return image_pass(b);
	if (pl->pass >= 0 && pl->num_sets > 1) {   /* application replay: this run's set alone */
		rc = tally_gpu_set_collection_mode(b->ctx, TALLY_GPU_COLLECTION_KERNEL);
		if (rc == PAPI_OK)
			rc = tally_gpu_group_set_enable(&b->sets->sets[pl->pass % pl->num_sets]);
		return rc;
	}
	if (pl->replay && (rc = tally_gpu_kernel_replay_enable(b->ctx)) != PAPI_OK)
		return rc;
	if (pl->ranges && (rc = tally_gpu_set_collection_mode(b->ctx, TALLY_GPU_COLLECTION_RANGES)) != PAPI_OK)
		return rc;
	return tally_gpu_group_sets_enable_all(b->sets);
}

/* Metric ids of b's chip, its group sets, the session; on Tally's thread. */
static void start_session(void *arg)
{
	struct tly_gpu_bind *b = arg;
	const struct tly_gpu_plan *pl = &bd.plan;
	int rc = PAPI_OK;

	for (int i = 0; i < pl->n && rc == PAPI_OK; i++)
		rc = tally_gpu_event_id(b->device, pl->names[i], &b->ids[i]);
	if (rc == PAPI_OK)
		rc = tally_gpu_group_sets_create(b->ctx, b->ids, pl->n, &b->sets);
	if (rc == PAPI_OK && b->sets->num_sets != pl->num_sets) {
		tly_rt_log(1, "GPU %d (%s): the metrics need %d passes there, %d in the job's schedule; no GPU "
			   "metrics on it", b->device, b->name, b->sets->num_sets, pl->num_sets);
		b->state = TLY_GPU_BIND_FAILED;
		return;
	}
	if (rc == PAPI_OK)
		rc = enable_mode(b);
	if (rc != PAPI_OK) {
		tly_rt_log(1, "GPU metrics not collected on GPU %d (%s): %s%s", b->device, b->uuid, why(rc),
			   strstr(why(rc), "HARDWARE_BUSY") ? " (another process is profiling this GPU: give each "
			   "process its own GPU)" : "");
		b->state = TLY_GPU_BIND_FAILED;
		return;
	}
	b->state = TLY_GPU_BIND_ON;
	tly_rt_log(2, "GPU %d (%s, %s, PCI %s): %d metric(s) in %d pass(es)%s%s", b->device, b->name, b->uuid,
		   b->pci, pl->n, pl->num_sets, pl->replay ? ", kernel replay" : "",
		   pl->ranges ? ", values per region" : "");
}

/* Whether b is this process's to profile: the device filter, the claim. */
static int selected(struct tly_gpu_bind *b)
{
	if (bd.plan.filter >= 0 && b->device != bd.plan.filter) {
		tly_rt_log(2, "GPU %d (%s) not profiled: the metrics name device %d", b->device, b->uuid,
			   bd.plan.filter);
		b->state = TLY_GPU_BIND_FILTERED;
		return 0;
	}
	if (!tly_gpu_share_claim(b->uuid, &b->owner_rank, &b->owner_pid)) {
		char who[48];

		if (b->owner_rank >= 0)
			snprintf(who, sizeof who, "rank %d (pid %ld)", b->owner_rank, b->owner_pid);
		else if (b->owner_pid > 0)
			snprintf(who, sizeof who, "pid %ld", b->owner_pid);
		else
			snprintf(who, sizeof who, "another process");
		tly_rt_log(1, "GPU %s (device %d here) is profiled by %s, which uses it too (a GPU's counters "
			   "serve one process at a time): no GPU metrics for it in this process; give each process "
			   "its own GPU", b->uuid, b->device, who);
		b->state = TLY_GPU_BIND_SHARED;
		return 0;
	}
	return 1;
}

/* A new binding for (ctx, device, uid), its session started; bd.lock held. */
static struct tly_gpu_bind *bind_new(void *ctx, int device, uint32_t uid)
{
	int n = atomic_load(&bd.nb);
	tally_gpu_device_info_t di = { .size = sizeof di };
	struct tly_gpu_bind *b;

	if (n == TLY_GPU_MAX_BINDS) {
		if (!bd.full_said++)
			tly_rt_log(1, "more than %d CUDA contexts: the later ones are not profiled", TLY_GPU_MAX_BINDS);
		return NULL;
	}
	b = &bd.b[n];
	memset(b, 0, sizeof *b);
	b->uid = uid;
	b->ctx = ctx;
	b->device = device;
	b->owner_rank = tly_rt_proc()->rank;
	b->owner_pid = (long)getpid();
	b->state = TLY_GPU_BIND_FAILED;
	if (tally_gpu_device_info(device, &di) == PAPI_OK) {
		snprintf(b->uuid, sizeof b->uuid, "%s", di.uuid);
		snprintf(b->pci, sizeof b->pci, "%s", di.pci_bus_id);
		snprintf(b->name, sizeof b->name, "%s", di.name);
	}
	if (bd.plan.n > 0 && selected(b)) {
		/* values per region: started with the runtime, on its thread */
		if (bd.plan.ranges)
			start_session(b);
		else if (tly_gpu_start_background(start_session, b) == 0) {
			if (tly_gpu_start_wait() != 0)
				tly_rt_log(1, "the GPU profiler's start on GPU %d has not ended after a minute", device);
			tly_gpu_start_join();
		} else {
			start_session(b);
		}
	}
	atomic_store_explicit(&bd.nb, n + 1, memory_order_release);
	return b;
}

/* A binding made at the start (tly_gpu_bind_now: uid 0) on `device` takes
 * the uid of the first context launching there; bd.lock held. */
static struct tly_gpu_bind *adopt(int device, uint32_t uid)
{
	int n = atomic_load(&bd.nb);

	for (int i = 0; i < n; i++)
		if (bd.b[i].uid == 0 && bd.b[i].device == device) {
			bd.b[i].uid = uid;
			return &bd.b[i];
		}
	return NULL;
}

struct tly_gpu_bind *tly_gpu_bind_launch(const tally_gpu_launch_t *l)
{
	void *ctx = l->size >= sizeof *l ? l->context : NULL;
	struct tly_gpu_bind *b = tly_gpu_bind_find(l->context_uid);
	int first = 0;

	if (b)
		return b;
	pthread_mutex_lock(&bd.lock);
	b = tly_gpu_bind_find(l->context_uid);
	if (!b)
		b = adopt(l->device, l->context_uid);
	/* values per region: the context bound at the start only */
	if (!b && !bd.plan.ranges && (b = bind_new(ctx, l->device, l->context_uid)) && b->state == TLY_GPU_BIND_ON)
		first = !atomic_exchange(&bd.on, 1);
	pthread_mutex_unlock(&bd.lock);
	if (first && bd.plan.ranges) {   /* the first range: the launching thread's region */
		tly_gpu_rt_marks_on();
		tly_gpu_rt_mark(tly_rt_self());
	}
	return b;
}

void tly_gpu_bind_now(int device)
{
	struct tly_gpu_bind *b;

	pthread_mutex_lock(&bd.lock);
	b = bind_new(NULL, device, 0);
	if (b && b->state == TLY_GPU_BIND_ON)
		atomic_store(&bd.on, 1);
	pthread_mutex_unlock(&bd.lock);
}

void tly_gpu_bind_stop(void)
{
	int n = atomic_load_explicit(&bd.nb, memory_order_acquire);

	for (int i = 0; i < n; i++) {
		struct tly_gpu_bind *b = &bd.b[i];

		if (b->state != TLY_GPU_BIND_ON || !b->sets)
			continue;
		tally_gpu_group_sets_disable_all(b->sets);
		for (int k = 0; k < b->sets->num_sets; k++)   /* application replay enabled one set */
			tally_gpu_group_set_disable(&b->sets->sets[k]);
		if (bd.plan.replay)
			tally_gpu_kernel_replay_disable(b->ctx);
	}
}
