/*
 * nvtx_store.c - where NVTX events are kept until the file is written:
 * per thread (marks, payload rows, in a per-thread arena: no lock, no
 * allocation once the arena has room) and, for start/end ranges that may
 * end on another thread, one process list under a lock.
 */
#include "nvtx/nvtx.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt.h"

static struct {
	pthread_mutex_t lock;
	struct tly_nv_thread *threads;
	struct tly_nv_range *ranges;
	size_t nranges, capranges;
	uint64_t next_range;
	int dropped_logged;
	atomic_long nmarks;   /* marks kept, all threads */
} store = { .lock = PTHREAD_MUTEX_INITIALIZER, .next_range = 1 };

/* initial-exec: looked up on every NVTX call (general-dynamic TLS costs a
 * __tls_get_addr call each time) */
static _Thread_local struct tly_nv_thread *nv_self __attribute__((tls_model("initial-exec")));

/* Bounded copy of a message: on the push path, where snprintf's format
 * machinery cost more than the rest of a payload push. */
static void copy_msg(char *dst, size_t len, const char *src)
{
	size_t n = src ? strnlen(src, len - 1) : 0;

	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

struct tly_nv_thread *tly_nv_self(void)
{
	struct tly_rt_thread *rt;

	if (nv_self)
		return nv_self;
	if (!tly_nv_opts()->on || !(rt = tly_rt_self()))
		return NULL;
	nv_self = calloc(1, sizeof *nv_self);
	if (!nv_self)
		return NULL;
	nv_self->rt = rt;
	pthread_mutex_lock(&store.lock);
	nv_self->next = store.threads;
	store.threads = nv_self;
	pthread_mutex_unlock(&store.lock);
	return nv_self;
}

struct tly_nv_thread *tly_nv_threads(void)
{
	struct tly_nv_thread *t;

	pthread_mutex_lock(&store.lock);
	t = store.threads;
	pthread_mutex_unlock(&store.lock);
	return t;
}

static int grow(void **v, size_t *cap, size_t n, size_t sz)
{
	void *p;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 256;
	p = realloc(*v, c * sz);
	if (!p)
		return -1;
	*v = p;
	*cap = c;
	return 0;
}

static int32_t cur_node(const struct tly_nv_thread *t)
{
	return t->rt->depth ? t->rt->stack[t->rt->depth - 1].node : 0;
}

/* Marks kept (all threads) stay within TALLY_NVTX_MAX_MARKS: a program
 * marking in a loop must not fill the memory or the file.  Further marks
 * are counted (ranks.nvtx_marks_dropped) and the report says so. */
static int mark_room(void)
{
	long max = tly_rt_proc()->opt.nvtx_max_marks;

	if (atomic_load_explicit(&store.nmarks, memory_order_relaxed) >= max)
		return 0;
	return atomic_fetch_add(&store.nmarks, 1) < max;
}

void tly_nv_mark_add(struct tly_nv_thread *t, int domain, uint32_t cat, int64_t ts, const char *msg)
{
	struct tly_nv_mark *m;

	if (!mark_room()) {
		atomic_fetch_add(&tly_rt_proc()->marks_dropped, 1);
		return;
	}
	if (grow((void **)&t->marks, &t->capmarks, t->nmarks, sizeof *t->marks) < 0)
		return;
	m = &t->marks[t->nmarks++];
	m->node = cur_node(t);
	m->domain = domain;
	m->category = cat;
	m->time_ns = ts;
	copy_msg(m->message, sizeof m->message, msg);
}

static void dropped(const struct tly_nv_schema *s, uint64_t id)
{
	pthread_mutex_lock(&store.lock);
	if (!store.dropped_logged++)
		tly_rt_log(1, "NVTX: a payload of schema %s (id %llu) %s; such payloads are left out",
			   s ? s->name : "?", (unsigned long long)id,
			   s ? "is shorter than its schema needs" : "names no registered schema");
	pthread_mutex_unlock(&store.lock);
}

/* One decoded row appended to t; NULL when dropped. */
static struct tly_nv_hdr *add_row(struct tly_nv_thread *t, const struct tly_nv_schema *s, const void *p,
				  size_t size, struct tly_nv_dec *d)
{
	void *row;
	struct tly_nv_hdr *h;

	if (grow((void **)&t->rows, &t->caprows, t->nrows, sizeof *t->rows) < 0)
		return NULL;
	row = tly_nv_alloc(&t->arena, s->row->size);
	if (!row)
		return NULL;
	memset(row, 0, s->row->size);
	d->arena = &t->arena;
	d->follow_pointers = 1;
	if (tly_nv_decode(s, p, size, row, d) < 0) {
		dropped(s, s->id);
		return NULL;
	}
	t->rows[t->nrows++] = (struct tly_nv_prow){ s, t->rt, row };
	h = row;
	h->thread = t->rt->index;
	h->region = cur_node(t);
	return h;
}

const char *tly_nv_payloads(struct tly_nv_thread *t, int domain, int event, uint64_t range,
			    const nvtxPayloadData_t *pd, size_t n, int64_t ts, char *msg, size_t mlen)
{
	const char *found = NULL;

	for (size_t k = 0; pd && k < n && k < 64; k++) {
		const struct tly_nv_schema *s = tly_nv_schema_find(pd[k].schemaId);
		struct tly_nv_dec d = { 0 };
		struct tly_nv_hdr *h;

		if (!s) {
			if (pd[k].schemaId != NVTX_TYPE_PAYLOAD_SCHEMA_REFERENCED
			    && pd[k].schemaId != NVTX_TYPE_PAYLOAD_SCHEMA_RAW)
				dropped(NULL, pd[k].schemaId);
			continue;
		}
		if (!(h = add_row(t, s, pd[k].payload, pd[k].size, &d)))
			continue;
		h->event = event;
		h->time_ns = ts;
		h->range_id = range;
		h->domain = domain;
		if (d.msg && !found && msg) {
			copy_msg(msg, mlen, d.msg);
			found = msg;
		}
	}
	return found;
}

size_t tly_nv_deferred(struct tly_nv_thread *t, int domain, uint64_t schema, const void *p, size_t size,
		       size_t count, uint64_t td, int scope)
{
	const struct tly_nv_schema *s = tly_nv_schema_find(schema);
	size_t stride = s ? (size_t)tly_nv_stride(s) : 0, done = 0;

	if (!s || (count > 1 && !stride)) {
		dropped(s, schema);
		return 0;
	}
	for (size_t k = 0; k < count; k++) {
		struct tly_nv_dec d = { 0 };
		const unsigned char *at = (const unsigned char *)p + k * stride;
		struct tly_nv_hdr *h = add_row(t, s, at, count > 1 ? stride : size, &d);
		int64_t v;

		if (!h)
			continue;
		h->event = TLY_NV_EV_DEFERRED;
		h->domain = domain;
		h->scope = scope;
		h->time_ns = h->end_ns = -1;
		if ((d.nts & 1) && !tly_nv_convert(d.ts_domain[0] ? d.ts_domain[0] : td, d.ts[0], &v))
			h->time_ns = v;
		if ((d.nts & 2) && !tly_nv_convert(d.ts_domain[1] ? d.ts_domain[1] : td, d.ts[1], &v))
			h->end_ns = v;
		done++;
	}
	return done;
}

uint64_t tly_nv_range_start(int domain, uint32_t cat, const char *msg)
{
	struct tly_nv_thread *t = tly_nv_self();
	uint64_t id = 0;

	pthread_mutex_lock(&store.lock);
	if (t && !grow((void **)&store.ranges, &store.capranges, store.nranges, sizeof *store.ranges)) {
		struct tly_nv_range *r = &store.ranges[store.nranges++];

		memset(r, 0, sizeof *r);
		r->id = id = store.next_range++;
		r->domain = domain;
		r->category = cat;
		r->start_thread = t->rt->index;
		r->end_thread = -1;
		r->start_ns = tly_rt_now();
		r->end_ns = -1;
		copy_msg(r->message, sizeof r->message, msg);
	}
	pthread_mutex_unlock(&store.lock);
	return id;
}

/* Ids are handed out in order, so the range is found by bisection. */
int tly_nv_range_end(uint64_t id)
{
	struct tly_nv_thread *t = tly_nv_self();
	int64_t now = tly_rt_now();
	size_t lo = 0, hi;
	int rc = -1;

	pthread_mutex_lock(&store.lock);
	hi = store.nranges;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (store.ranges[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (t && lo < store.nranges && store.ranges[lo].id == id && store.ranges[lo].end_ns < 0) {
		store.ranges[lo].end_ns = now;
		store.ranges[lo].end_thread = t->rt->index;
		rc = 0;
	}
	pthread_mutex_unlock(&store.lock);
	return rc;
}

size_t tly_nv_ranges(const struct tly_nv_range **r)
{
	*r = store.ranges;
	return store.nranges;
}

void tly_nv_lock_ranges(int lock)
{
	if (lock)
		pthread_mutex_lock(&store.lock);
	else
		pthread_mutex_unlock(&store.lock);
}
