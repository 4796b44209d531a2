/*
 * nvtx_time.c - time domains of deferred events and their conversion to
 * Tally's clock (CLOCK_MONOTONIC ns, read from the CPU counter where the
 * kernel allows: what nvtxTimestampGet returns).
 * A domain converts through a conversion factor or through two sync
 * points (linear: offset and rate) to a domain that converts, ending at
 * Tally's clock or a clock_gettime clock sampled now; a domain with a
 * timer source gets sync points from it.  Also nvtxScopeRegister.
 */
#include "nvtx/nvtx.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/rt.h"

#define NDOM 64
#define NSYNC 512
#define NSCOPE 256

struct tdom {
	uint64_t id, scope, type;
	int64_t (*fn0)(void);
	int64_t (*fn1)(void *);
	void *data;
	int unsafe_at_exit;
};
struct rel { uint64_t src, dst; double slope; int64_t ts, td; int factor; };

static struct {
	pthread_mutex_t lock;
	struct tdom d[NDOM];
	int nd;
	struct rel r[NSYNC];
	int nr;
	struct { uint64_t id, parent; char path[128]; } sc[NSCOPE];
	int nsc;
	uint64_t next_id, next_scope;
	int exiting;
} time_reg = { .lock = PTHREAD_MUTEX_INITIALIZER, .next_id = NVTX_TIME_DOMAIN_ID_DYNAMIC_START,
	 .next_scope = NVTX_SCOPE_ID_DYNAMIC_START };

int64_t tly_nv_now(void)
{
	return tly_rt_now();
}

static struct tdom *dom(uint64_t id)
{
	for (int i = 0; i < time_reg.nd; i++)
		if (time_reg.d[i].id == id)
			return &time_reg.d[i];
	return NULL;
}

uint64_t tly_nv_time_domain_register(int domain, const nvtxTimeDomainAttr_t *a)
{
	uint64_t id = 0;

	(void)domain;
	if (!a)
		return NVTX_TIME_DOMAIN_ID_NONE;
	pthread_mutex_lock(&time_reg.lock);
	if (a->timeDomainId && (a->timeDomainId < NVTX_TIME_DOMAIN_ID_STATIC_START
				|| a->timeDomainId >= NVTX_TIME_DOMAIN_ID_DYNAMIC_START || dom(a->timeDomainId)))
		id = 0;
	else if (time_reg.nd < NDOM)
		id = a->timeDomainId ? a->timeDomainId : time_reg.next_id++;
	if (id)
		time_reg.d[time_reg.nd++] = (struct tdom){ .id = id, .scope = a->scopeId, .type = a->timestampTypeId };
	pthread_mutex_unlock(&time_reg.lock);
	if (!id)
		tly_rt_log(1, "NVTX: time domain refused (static id out of range or taken, or too many domains)");
	return id;
}

static void add_rel_locked(struct rel r)
{
	if (time_reg.nr < NSYNC)
		time_reg.r[time_reg.nr++] = r;
}

void tly_nv_sync(uint64_t a, uint64_t b, int64_t ta, int64_t tb)
{
	pthread_mutex_lock(&time_reg.lock);
	add_rel_locked((struct rel){ .src = a, .dst = b, .ts = ta, .td = tb });
	pthread_mutex_unlock(&time_reg.lock);
}

void tly_nv_factor(uint64_t src, uint64_t dst, double slope, int64_t ts, int64_t td)
{
	pthread_mutex_lock(&time_reg.lock);
	add_rel_locked((struct rel){ .src = src, .dst = dst, .slope = slope, .ts = ts, .td = td, .factor = 1 });
	pthread_mutex_unlock(&time_reg.lock);
}

static int64_t call_source(struct tdom *d)
{
	return d->fn1 ? d->fn1(d->data) : d->fn0();
}

void tly_nv_timer_source(uint64_t td, uint64_t flags, int64_t (*fn0)(void), int64_t (*fn1)(void *), void *data)
{
	struct tdom *d;

	pthread_mutex_lock(&time_reg.lock);
	d = dom(td);
	if (d && (fn0 || fn1)) {
		d->fn0 = fn0;
		d->fn1 = fn1;
		d->data = data;
		d->unsafe_at_exit = flags == NVTX_TIMER_SOURCE_UNSAFE_CALL_AFTER_PROCESS_TEARDOWN;
		add_rel_locked((struct rel){ .src = td, .dst = NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED,
					     .ts = call_source(d), .td = tly_nv_now() });
	}
	pthread_mutex_unlock(&time_reg.lock);
}

/* clock_gettime clocks: offset to Tally's clock, sampled now. */
static int clock_of(uint64_t type, clockid_t *c)
{
	switch (type) {
	case NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_REALTIME: *c = CLOCK_REALTIME; return 1;
	case NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_REALTIME_COARSE: *c = CLOCK_REALTIME_COARSE; return 1;
	case NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC_RAW: *c = CLOCK_MONOTONIC_RAW; return 1;
	case NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC_COARSE: *c = CLOCK_MONOTONIC_COARSE; return 1;
	case NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_BOOTTIME: *c = CLOCK_BOOTTIME; return 1;
	case NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC: *c = CLOCK_MONOTONIC; return 1;
	default: return 0;
	}
}

/* td: a timestamp type (a registered domain's type, never NONE). */
static int direct(uint64_t td, int64_t t, int64_t *out)
{
	clockid_t c;
	struct timespec ts;

	/* Tally's clock is CLOCK_MONOTONIC read from the CPU counter (same
	 * origin, ppm-level rate difference): convert through "now" too */
	if (td == NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED
	    || (td == NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_MONOTONIC && !tly_rt_clock_is_fast())) {
		*out = t;
		return 1;
	}
	if (!clock_of(td, &c))
		return 0;
	clock_gettime(c, &ts);
	*out = t - ((int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec) + tly_nv_now();
	return 1;
}

/* Linear map src -> other domain from a factor or the first and last sync
 * points between the two (either direction). */
static int map_locked(uint64_t src, uint64_t *dst, int64_t t, int64_t *out)
{
	for (int i = 0; i < time_reg.nr; i++)
		if (time_reg.r[i].factor && time_reg.r[i].src == src) {
			*dst = time_reg.r[i].dst;
			*out = time_reg.r[i].td + (int64_t)(time_reg.r[i].slope * (double)(t - time_reg.r[i].ts));
			return 1;
		}
	for (int i = 0; i < time_reg.nr; i++) {
		const struct rel *a = &time_reg.r[i], *b = NULL;
		int flip = a->dst == src;

		if (a->factor || (a->src != src && a->dst != src))
			continue;
		for (int j = time_reg.nr - 1; j > i && !b; j--)
			if (!time_reg.r[j].factor && ((time_reg.r[j].src == a->src && time_reg.r[j].dst == a->dst)
						|| (time_reg.r[j].src == a->dst && time_reg.r[j].dst == a->src)))
				b = &time_reg.r[j];
		if (!b)
			continue;
		{
			int bf = b->src != a->src;
			double x0 = (double)(flip ? a->td : a->ts), y0 = (double)(flip ? a->ts : a->td);
			double x1 = (double)(flip != bf ? b->td : b->ts), y1 = (double)(flip != bf ? b->ts : b->td);

			if (x1 == x0)
				continue;
			*dst = flip ? a->src : a->dst;
			*out = (int64_t)(y0 + (y1 - y0) * ((double)t - x0) / (x1 - x0) + 0.5);
			return 1;
		}
	}
	return 0;
}

int tly_nv_convert(uint64_t td, int64_t t, int64_t *out)
{
	int rc = -1;

	if (td == NVTX_TIMESTAMP_TYPE_NONE) {    /* no domain named: Tally's clock */
		*out = t;
		return 0;
	}
	pthread_mutex_lock(&time_reg.lock);
	for (int hop = 0; hop < 6 && rc < 0; hop++) {
		struct tdom *d = dom(td);
		uint64_t next;

		/* a domain of type NONE converts only through its relations */
		if ((!d && direct(td, t, out)) || (d && d->type != NVTX_TIMESTAMP_TYPE_NONE && direct(d->type, t, out))) {
			rc = 0;
			break;
		}
		if (d && (d->fn0 || d->fn1) && !(time_reg.exiting && d->unsafe_at_exit))
			add_rel_locked((struct rel){ .src = td, .dst = NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED,
						     .ts = call_source(d), .td = tly_nv_now() });
		if (!map_locked(td, &next, t, &t))
			break;
		td = next;
	}
	pthread_mutex_unlock(&time_reg.lock);
	return rc;
}

uint64_t tly_nv_scope_time_domain(uint64_t scope)
{
	uint64_t td = 0;

	pthread_mutex_lock(&time_reg.lock);
	for (int i = 0; i < time_reg.nd && !td; i++)
		if (scope && time_reg.d[i].scope == scope)
			td = time_reg.d[i].id;
	pthread_mutex_unlock(&time_reg.lock);
	return td;
}

uint64_t tly_nv_scope_register(int domain, const nvtxScopeAttr_t *a)
{
	uint64_t id = NVTX_SCOPE_NONE;

	(void)domain;
	if (!a || a->structSize < sizeof *a)
		return NVTX_SCOPE_NONE;
	pthread_mutex_lock(&time_reg.lock);
	if (time_reg.nsc < NSCOPE && (!a->scopeId || (a->scopeId >= NVTX_SCOPE_ID_STATIC_START
						  && a->scopeId < NVTX_SCOPE_ID_DYNAMIC_START))) {
		id = a->scopeId ? a->scopeId : time_reg.next_scope++;
		time_reg.sc[time_reg.nsc].id = id;
		time_reg.sc[time_reg.nsc].parent = a->parentScope;
		strncpy(time_reg.sc[time_reg.nsc].path, a->path ? a->path : "", sizeof time_reg.sc[0].path - 1);
		time_reg.nsc++;
	}
	pthread_mutex_unlock(&time_reg.lock);
	return id;
}

void tly_nv_time_exit(void)
{
	pthread_mutex_lock(&time_reg.lock);
	time_reg.exiting = 1;
	pthread_mutex_unlock(&time_reg.lock);
}
