/*
 * cuda_activity.c - CUPTI's Activity API for the event trace's GPU
 * streams (tally_gpu_activity.h): kernels (CONCURRENT_KERNEL), copies and
 * memsets of every context, in buffers handed to CUPTI and returned full;
 * each buffer's records converted to tally_gpu_activity_t (kernel names
 * demangled once per CUPTI name) and given to the consumer.
 *
 * Kernel records: CONCURRENT_KERNEL, or KERNEL where the caller says the
 * kernels are serialized anyway (per-kernel GPU metrics): with the range
 * profiler in kernel mode, CONCURRENT_KERNEL made CUPTI run a `WaitNs`
 * kernel inside each launch, which the profiler counted with the kernel
 * (issue 49: +1,048,616 instructions per launch on an H200); with KERNEL
 * the counts equal the untraced run's and ncu's exactly.
 *
 * Clock: CUPTI stamps CPU events and maps the GPU's timestamps to its
 * host clock by linear interpolation.  With
 * cuptiActivityRegisterTimestampCallback its host clock is the consumer's
 * (the runtime's CLOCK_MONOTONIC), so the records need no mapping; a
 * libcupti without it uses CLOCK_REALTIME on Linux, and the records are
 * shifted by (clock - cuptiGetTimestamp) read together at the start and
 * again at each buffer.
 */
#include "cuda_dl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "papi.h"
#include "services/err_detail.h"
#include "tally_gpu_activity.h"

#define BUF_BYTES (1u << 20)
#define NAMES 4096   /* distinct kernel names cached (by CUPTI's pointer) */
#define BATCH 256

static CUpti_ActivityKind kinds[] = { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
				      CUPTI_ACTIVITY_KIND_MEMSET };

static struct {
	pthread_mutex_t lock;           /* everything below but clock */
	const struct tly_cu_act_fns *f;
	tally_gpu_activity_fn fn;
	void *ud;
	int on, pairs;
	int serial;                     /* kernel records of the serialized kind (tally_gpu_activity_serialize) */
	int64_t shift;                  /* pairs: clock - cuptiGetTimestamp */
	struct { const char *key; char *name; } names[NAMES];
} act = { .lock = PTHREAD_MUTEX_INITIALIZER };

static _Atomic(uint64_t (*)(void)) act_clock;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t CUPTIAPI cupti_clock(void)
{
	uint64_t (*c)(void) = atomic_load(&act_clock);

	return c ? c() : mono_ns();
}

/* The offset clock - CUPTI, from the closest of three reads (lock held). */
static void read_pair(void)
{
	int64_t best = INT64_MAX;

	for (int i = 0; i < 3; i++) {
		uint64_t a = cupti_clock(), c = 0, b;

		act.f->cuptiGetTimestamp(&c);
		b = cupti_clock();
		if ((int64_t)(b - a) < best) {
			best = (int64_t)(b - a);
			act.shift = (int64_t)(a / 2 + b / 2) - (int64_t)c;
		}
	}
}

static const char *kernel_name(const char *mangled)
{
	uintptr_t h = ((uintptr_t)mangled >> 4) % NAMES;

	if (!mangled)
		return "?";
	for (int i = 0; i < NAMES; i++, h = (h + 1) % NAMES) {
		if (act.names[h].key == mangled)
			return act.names[h].name;
		if (!act.names[h].key) {
			char *d = tly_cu_demangle_dup(mangled);

			if (!d)
				return mangled;
			act.names[h].key = mangled;
			act.names[h].name = d;
			return d;
		}
	}
	return mangled;   /* table full: the symbol itself */
}

static const char *const copy_names[] = { "memcpy ?", "memcpy HtoD", "memcpy DtoH", "memcpy HtoA", "memcpy AtoH",
					  "memcpy AtoA", "memcpy AtoD", "memcpy DtoA", "memcpy DtoD", "memcpy HtoH",
					  "memcpy PtoP" };

/* One CUPTI record as a tally record; 0 when of another kind. */
static int convert(const CUpti_Activity *r, tally_gpu_activity_t *o)
{
	memset(o, 0, sizeof *o);
	if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || r->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
		const CUpti_ActivityKernel10 *k = (const void *)r;

		*o = (tally_gpu_activity_t){ TALLY_GPU_ACT_KERNEL, k->deviceId, k->contextId, k->streamId,
					     k->correlationId, k->start, k->end, 0, kernel_name(k->name) };
	} else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
		const CUpti_ActivityMemcpy6 *m = (const void *)r;

		*o = (tally_gpu_activity_t){ TALLY_GPU_ACT_MEMCPY, m->deviceId, m->contextId, m->streamId,
					     m->correlationId, m->start, m->end, m->bytes,
					     copy_names[m->copyKind < sizeof copy_names / sizeof *copy_names ? m->copyKind : 0] };
	} else if (r->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
		const CUpti_ActivityMemset4 *m = (const void *)r;

		*o = (tally_gpu_activity_t){ TALLY_GPU_ACT_MEMSET, m->deviceId, m->contextId, m->streamId,
					     m->correlationId, m->start, m->end, m->bytes, "memset" };
	} else {
		return 0;
	}
	o->start = (uint64_t)((int64_t)o->start + act.shift);
	o->end = (uint64_t)((int64_t)o->end + act.shift);
	return 1;
}

/* Registered at the first buffer, after the CUDA runtime's own exit
 * handler: so it runs before that one destroys the contexts. */
static void flush_at_exit(void)
{
	tally_gpu_activity_flush();
}

static void CUPTIAPI buf_requested(uint8_t **buf, size_t *size, size_t *max)
{
	static atomic_int exit_hook;

	if (!atomic_exchange(&exit_hook, 1))
		atexit(flush_at_exit);
	*buf = aligned_alloc(8, BUF_BYTES);
	*size = *buf ? BUF_BYTES : 0;
	*max = 0;
}

static void CUPTIAPI buf_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size, size_t valid)
{
	tally_gpu_activity_t b[BATCH];
	CUpti_Activity *r = NULL;
	size_t n = 0, dropped = 0;

	(void)ctx;
	(void)stream;
	(void)size;
	pthread_mutex_lock(&act.lock);
	if (act.on) {
		act.f->cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);
		if (act.pairs)
			read_pair();
		while (valid && act.f->cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) {
			n += convert(r, &b[n]);
			if (n == BATCH) {
				act.fn(b, n, dropped, act.ud);
				n = 0;
				dropped = 0;
			}
		}
		if (n || dropped)
			act.fn(b, n, dropped, act.ud);
	}
	pthread_mutex_unlock(&act.lock);
	free(buf);
}

int tally_gpu_activity_start(tally_gpu_activity_fn fn, void *ud, uint64_t (*clock)(void), const char **how)
{
	const char *why = "";
	const struct tly_cu_act_fns *f = tly_cu_act_fns(&why);
	CUptiResult r = CUPTI_SUCCESS;
	size_t k = 0;

	if (!fn)
		return PAPI_EINVAL;
	if (!f)
		return tly_err_set(PAPI_ENOSUPP, "CUPTI's Activity API: %s", why);
	pthread_mutex_lock(&act.lock);
	if (act.on) {
		pthread_mutex_unlock(&act.lock);
		return PAPI_EISRUN;
	}
	act.f = f;
	atomic_store(&act_clock, clock);
	act.pairs = !f->cuptiActivityRegisterTimestampCallback ||
		    f->cuptiActivityRegisterTimestampCallback(cupti_clock) != CUPTI_SUCCESS;
	act.shift = 0;
	if (act.pairs)
		read_pair();
	act.fn = fn;
	act.ud = ud;
	act.on = 1;
	kinds[0] = act.serial ? CUPTI_ACTIVITY_KIND_KERNEL : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	pthread_mutex_unlock(&act.lock);
	if (how)
		*how = act.pairs ? "pairs" : "callback";
	r = f->cuptiActivityRegisterCallbacks(buf_requested, buf_completed);
	for (; r == CUPTI_SUCCESS && k < sizeof kinds / sizeof *kinds; k++)
		r = f->cuptiActivityEnable(kinds[k]);
	if (r == CUPTI_SUCCESS)
		return PAPI_OK;
	while (k-- > 0)
		f->cuptiActivityDisable(kinds[k]);
	pthread_mutex_lock(&act.lock);
	act.on = 0;
	pthread_mutex_unlock(&act.lock);
	return tly_cu_pti_err(r, "CUPTI's Activity API");
}

int tally_gpu_activity_serialize(int on)
{
	pthread_mutex_lock(&act.lock);
	if (act.on) {
		pthread_mutex_unlock(&act.lock);
		return PAPI_EISRUN;
	}
	act.serial = on != 0;
	pthread_mutex_unlock(&act.lock);
	return PAPI_OK;
}

int tally_gpu_activity_flush(void)
{
	int on;

	pthread_mutex_lock(&act.lock);
	on = act.on;
	pthread_mutex_unlock(&act.lock);
	if (!on)
		return PAPI_ENOTRUN;
	/* buf_completed may run in this thread: the lock is not held here */
	return tly_cu_pti_err(act.f->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
}

int tally_gpu_activity_stop(void)
{
	int rc = tally_gpu_activity_flush();

	if (rc == PAPI_ENOTRUN)
		return rc;
	/* stopped even when the flush failed (after the CUDA runtime's exit
	 * handler destroyed the contexts it may): libcupti hands back the
	 * buffers it still holds at its own exit, when the consumer's state
	 * is gone, so from here buf_completed only frees them */
	pthread_mutex_lock(&act.lock);
	act.on = 0;
	pthread_mutex_unlock(&act.lock);
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
		act.f->cuptiActivityDisable(kinds[k]);
	pthread_mutex_lock(&act.lock);
	for (int i = 0; i < NAMES; i++) {
		free(act.names[i].name);
		act.names[i].key = NULL;
		act.names[i].name = NULL;
	}
	pthread_mutex_unlock(&act.lock);
	return rc;
}
