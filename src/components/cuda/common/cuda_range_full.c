/*
 * cuda_range_full.c - kernel mode without a ceiling: a counter data image
 * holds max_ranges kernels (TALLY_CUDA_RANGES); when it is full, the
 * launch callback of the next kernel (entry, on the launching thread, the
 * context current) stops the session, decodes and evaluates its ranges
 * into the session's on_full function and starts it again with the same
 * configuration, so every kernel of a long program gets its values.
 * Kernels that still lose theirs (no CUPTI subscription, application
 * replay) are said once on stderr.
 */
#include "cuda_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "papi.h"

#define MAX_LIVE 64

/* The lock of every session's range calls (tly_cu_range_lock). */
static pthread_mutex_t range_lock = PTHREAD_MUTEX_INITIALIZER;

/* Kernel-mode sessions harvested when full, each with the harvest that
 * cuda_range.c registered for it (cuda_range sits above this file); entries
 * change under tly_cu_range_lock, nk lets launches skip the lock when there
 * is none. */
static struct {
	struct tly_cu_coll *k[MAX_LIVE];
	tly_cu_harvest_fn harvest[MAX_LIVE];
	atomic_int nk;
} full;

void tly_cu_range_lock(int on)
{
	if (on)
		pthread_mutex_lock(&range_lock);
	else
		pthread_mutex_unlock(&range_lock);
}

/* Kernel mode with the launch callback: a full image is harvested before
 * the next launch.  Without CUPTI's subscription (another tool holds it)
 * kernels past the image get no values, said once at the harvest. */
static void before_launch(CUcontext ctx, CUstream stream);
static void after_launch(CUcontext ctx, CUpti_CallbackId id, const void *params);

static const struct tly_cu_cb_follower follower = { .before_launch = before_launch, .after_launch = after_launch };

int tly_cu_coll_can_refill(const struct tly_cu_coll *c)
{
	tly_cu_cb_follow(&follower);
	return c->kernel_mode && c->user_pass < 0 && tly_cu_cb_init() == PAPI_OK;
}

void tly_cu_coll_kernel_add(struct tly_cu_coll *c, tly_cu_harvest_fn harvest)
{
	if (!harvest || !tly_cu_coll_can_refill(c))
		return;
	tly_cu_range_lock(1);
	for (int i = 0; i < MAX_LIVE && !c->refill; i++)
		if (!full.k[i]) {
			full.k[i] = c;
			full.harvest[i] = harvest;
			c->refill = 1;
			atomic_fetch_add(&full.nk, 1);
		}
	tly_cu_range_lock(0);
}

void tly_cu_coll_kernel_remove(struct tly_cu_coll *c)
{
	tly_cu_range_lock(1);
	for (int i = 0; i < MAX_LIVE && c->refill; i++)
		if (full.k[i] == c) {
			full.k[i] = NULL;
			full.harvest[i] = NULL;
			c->refill = 0;
			atomic_fetch_sub(&full.nk, 1);
		}
	tly_cu_range_lock(0);
}

/* Kernels that got no values (the image was full and could not be
 * harvested in time): said once per process, never silently. */
void tly_cu_coll_say_dropped(const struct tly_cu_coll *c, size_t n)
{
	static atomic_int said;

	if (atomic_exchange(&said, 1))
		return;
	fprintf(stderr, "tally: cuda: %zu kernel%s got no GPU values: the counter data image holds %zu ranges "
		"(TALLY_CUDA_RANGES) and %s\n", n, n == 1 ? "" : "s", c->max_ranges,
		c->user_pass >= 0 ? "application replay cannot harvest it before the run ends"
		: "Tally has no CUPTI subscription to harvest it when full (another CUPTI tool holds it)");
}

/* Harvests made by this thread's launch callback (CUPTI may launch work
 * of its own during one). */
static _Thread_local int in_refill;

/* A full kernel-mode image: harvested before the next launch on the
 * launching thread, ctx current, its ranges handed to the session's
 * on_full function, then re-armed with the same configuration. */
static void refill_locked(struct tly_cu_coll *c, tly_cu_harvest_fn harvest)
{
	double t = tly_cu_time_start();
	int rc;

	in_refill = 1;
	rc = harvest(c, 1, c->full_fn, c->full_ud);
	in_refill = 0;
	tly_cu_time_end("harvest of a full image (kernel mode)", t);
	c->refills++;
	if (rc != PAPI_OK && c->full_rc == PAPI_OK)
		c->full_rc = rc;
}

static void before_launch(CUcontext ctx, CUstream stream)
{
	if (in_refill || !atomic_load_explicit(&full.nk, memory_order_relaxed))
		return;
	tly_cu_own_serial_enter(ctx);   /* Tally's own replay: one launch at a time (left at the exit) */
	tly_cu_range_lock(1);
	for (int i = 0; i < MAX_LIVE; i++) {
		struct tly_cu_coll *c = full.k[i];

		if (!c || c->ctx != ctx || !c->running)
			continue;
		if (c->launched >= c->max_ranges)
			refill_locked(c, full.harvest[i]);
		c->launched++;
		if (c->own)
			tly_cu_own_before(c, stream);
	}
	tly_cu_range_lock(0);
}

/* Tally's own kernel replay: the kernel's other passes, then its range
 * harvested (one kernel per image: the next kernel starts from pass 0). */
static void after_launch(CUcontext ctx, CUpti_CallbackId id, const void *params)
{
	if (in_refill)
		return;
	if (!atomic_load_explicit(&full.nk, memory_order_relaxed)) {
		tly_cu_own_serial_leave();
		return;
	}
	tly_cu_range_lock(1);
	for (int i = 0; i < MAX_LIVE; i++) {
		struct tly_cu_coll *c = full.k[i];

		if (!c || c->ctx != ctx || !c->running || !c->own)
			continue;
		int rc = tly_cu_own_after(c, id, params);

		if (rc != PAPI_OK && c->full_rc == PAPI_OK)
			c->full_rc = rc;
		if (c->own_done)
			refill_locked(c, full.harvest[i]);
	}
	tly_cu_range_lock(0);
	tly_cu_own_serial_leave();
}
