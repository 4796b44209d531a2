/*
 * eventset.c - the event-set registry and event membership.
 *
 * Sets live in a table indexed by their id (lowest free id first, as PAPI
 * does, from core/id_pool.c in O(log n)).  The table is guarded by one mutex; a set itself is not locked:
 * PAPI event sets belong to one thread at a time.
 */
#include "core/eventset.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define TLY_LSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(TLY_LSAN)
#include <sanitizer/lsan_interface.h>
#define lsan_root(p, n) __lsan_register_root_region(p, n)
#else
#define lsan_root(p, n) ((void)(p), (void)(n))
#endif

#include "core/errors.h"
#include "core/id_pool.h"
#include "core/cmp_registry.h"
#include "core/native.h"
#include "core/overflow.h"
#include "core/overflow_sw.h"
#include "core/part.h"
#include "core/presets.h"
#include "core/threads.h"

#define CHUNK_BITS 10
#define CHUNK_SIZE (1 << CHUNK_BITS)
#define MAX_CHUNKS 256 /* 262144 sets */

typedef struct tly_evset *_Atomic slot_t;

/* Sets are found by id on every PAPI_read, so lookups are lock-free:
 * slots live in chunks that never move and are freed only at shutdown.
 * Creating and destroying take the mutex. */
static struct {
	pthread_mutex_t lock;
	slot_t *_Atomic chunk[MAX_CHUNKS];
	int cap; /* slots allocated */
	struct tly_id_pool ids;
} reg = { .lock = PTHREAD_MUTEX_INITIALIZER, .ids = { .limit = MAX_CHUNKS * CHUNK_SIZE } };

static slot_t *slot(int id)
{
	slot_t *c;

	if (id < 0 || id >= MAX_CHUNKS * CHUNK_SIZE)
		return NULL;
	c = atomic_load_explicit(&reg.chunk[id >> CHUNK_BITS], memory_order_acquire);
	return c ? &c[id & (CHUNK_SIZE - 1)] : NULL;
}

int tly_evset_get(int id, struct tly_evset **out)
{
	slot_t *s = slot(id);
	struct tly_evset *es = s ? atomic_load_explicit(s, memory_order_acquire) : NULL;

	if (!es)
		return tly_err_set(PAPI_ENOEVST, "event set %d does not exist", id);
	*out = es;
	return PAPI_OK;
}

/* Lowest free id for `es`; caller holds the lock.  -1 when full. */
static int slot_for(struct tly_evset *es)
{
	int id = tly_id_take(&reg.ids);

	if (id < 0)
		return -1;
	while (id >= reg.cap) {
		slot_t *c = calloc(CHUNK_SIZE, sizeof *c);

		if (!c) {
			tly_id_give(&reg.ids, id);
			return -1;
		}
		atomic_store_explicit(&reg.chunk[reg.cap >> CHUNK_BITS], c, memory_order_release);
		reg.cap += CHUNK_SIZE;
	}
	atomic_store_explicit(slot(id), es, memory_order_release);
	return id;
}

/* Shared by every set without events: only ever read, and only below
 * counts that are 0 while a set uses it. */
static struct tly_evset_arrays no_arrays;

int tly_evset_own_arrays(struct tly_evset *es)
{
	struct tly_evset_arrays *a;

	if (es->a != &no_arrays)
		return PAPI_OK;
	a = calloc(1, sizeof *a);
	if (!a)
		return tly_err_set(PAPI_ENOMEM, "out of memory for the events of event set %d", es->id);
	es->a = a;
	return PAPI_OK;
}

/* Set headers come from blocks of POOL_BLOCK mapped with MAP_POPULATE
 * (one system call instead of a page fault per 4 KiB) and are kept on a
 * free list; headers live until the process ends, like the id table.
 * Under ASan the blocks are LeakSanitizer root regions: the arrays of a set
 * still alive at exit (a forked child exiting without PAPI_shutdown) are
 * reachable from its header, which LSan would not look into otherwise. */
#define POOL_BLOCK 4096

static struct {
	pthread_mutex_t lock;
	struct tly_evset *free;   /* linked through ->a */
	struct tly_evset *block;
	int used;
} pool = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct tly_evset *pool_take(void)
{
	struct tly_evset *es = NULL;

	pthread_mutex_lock(&pool.lock);
	if (pool.free) {
		es = pool.free;
		pool.free = (struct tly_evset *)es->a;
		memset(es, 0, sizeof *es);   /* fresh blocks are zero already */
	} else {
		if (!pool.block || pool.used == POOL_BLOCK) {
			void *m = mmap(NULL, POOL_BLOCK * sizeof *es, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

			pool.block = m == MAP_FAILED ? NULL : m;
			pool.used = 0;
			if (pool.block)
				lsan_root(pool.block, POOL_BLOCK * sizeof *es);
		}
		if (pool.block)
			es = &pool.block[pool.used++];
	}
	pthread_mutex_unlock(&pool.lock);
	return es;
}

static void free_set(struct tly_evset *es)
{
	if (es->a != &no_arrays)
		free(es->a);
	pthread_mutex_lock(&pool.lock);
	es->a = (struct tly_evset_arrays *)pool.free;
	pool.free = es;
	pthread_mutex_unlock(&pool.lock);
}

/* A new set is its header only (about 150 bytes): the 9 KiB of arrays
 * come with its first event, so 100,000 empty sets cost no gigabyte of
 * page faults. */
static struct tly_evset *new_set(void)
{
	struct tly_evset *es = pool_take();

	if (es)
		es->a = &no_arrays;
	return es;
}

int tly_evset_create(int *id)
{
	struct tly_evset *es = new_set();

	if (!es)
		return tly_err_set(PAPI_ENOMEM, "out of memory creating an event set");
	es->cidx = -1;
	es->state = PAPI_STOPPED;
	es->owner_tid = tly_thread_id();
	tly_evset_default_opts(&es->opts, 0);
	pthread_mutex_lock(&reg.lock);
	es->id = slot_for(es);
	pthread_mutex_unlock(&reg.lock);
	if (es->id < 0) {
		free_set(es);
		return tly_err_set(PAPI_ENOMEM, "out of memory growing the event-set table");
	}
	*id = es->id;
	return PAPI_OK;
}

int tly_evset_cleanup(struct tly_evset *es)
{
	if (es->state & PAPI_RUNNING)
		return tly_err_set(PAPI_EISRUN, "event set %d is running; stop it first", es->id);
	for (int p = 0; p < es->nparts; p++)
		tly_part_free(&es->a->part[p]);
	for (int i = 0; i < es->nevents; i++) {
		free(es->a->ev[i].prof);
		es->a->ev[i].prof = NULL;
	}
	es->nparts = 0;
	es->nevents = 0;
	es->nnative = 0;
	es->has_pending = 0;
	if (es->a != &no_arrays)
		memset(es->a->stopvals, 0, sizeof es->a->stopvals);
	es->state &= ~(PAPI_MULTIPLEXING | PAPI_OVERFLOWING | PAPI_PROFILING);
	return PAPI_OK;
}

int tly_evset_destroy(int id)
{
	struct tly_evset *es = NULL;
	int rc;

	pthread_mutex_lock(&reg.lock);
	if (tly_evset_get(id, &es) != PAPI_OK) {
		pthread_mutex_unlock(&reg.lock);
		return PAPI_ENOEVST;
	}
	rc = PAPI_OK;
	if (es->state & PAPI_RUNNING)
		rc = tly_err_set(PAPI_EISRUN, "event set %d is running; stop it first", id);
	else if (es->nevents)
		rc = tly_err_set(PAPI_EINVAL, "event set %d is not empty; call PAPI_cleanup_eventset first", id);
	else {
		atomic_store(slot(id), NULL);
		tly_id_give(&reg.ids, id);
	}
	pthread_mutex_unlock(&reg.lock);
	if (rc == PAPI_OK) {
		tly_evset_cleanup(es);
		free_set(es);
	}
	return rc;
}

int tly_evset_assign(struct tly_evset *es, int cidx)
{
	int rc = tly_cmp_check(cidx);

	if (rc != PAPI_OK)
		return rc;
	if (es->nevents && es->cidx != cidx)
		return tly_err_set(PAPI_EINVAL, "event set %d already holds events of component %d", es->id,
				   es->cidx);
	if (es->cidx != cidx)
		tly_evset_default_opts(&es->opts, cidx);
	es->cidx = cidx;
	return PAPI_OK;
}

int tly_evset_find(const struct tly_evset *es, int code)
{
	for (int i = 0; i < es->nevents; i++)
		if (es->a->ev[i].code == code)
			return i;
	return -1;
}

/* Terms (native codes) an event code expands to. */
static int expand(int code, struct tly_ev *ev, int *codes)
{
	memset(ev, 0, sizeof *ev);
	ev->code = code;
	if (IS_PRESET(code)) {
		int idx = code & PAPI_PRESET_AND_MASK;
		const struct tly_preset *p = tly_preset_get(idx);

		if (idx >= PAPI_END_idx || !p)
			return tly_err_set(PAPI_ENOTPRESET, "0x%x is not a valid preset code", (unsigned)code);
		if (p->avail != PAPI_OK)
			return tly_err_set(p->avail, "%s is not available: %s", tly_preset_defs[idx].symbol,
					   p->note);
		ev->preset = p;
		ev->derived = p->derived;
		ev->nterms = p->nterms;
		memcpy(codes, p->codes, (size_t)p->nterms * sizeof *codes);
		return PAPI_OK;
	}
	if (IS_NATIVE(code)) {
		int rc = tly_native_get(code, NULL, NULL, NULL, 0);

		if (rc != PAPI_OK)
			return rc;
		ev->nterms = 1;
		codes[0] = code;
		return PAPI_OK;
	}
	return tly_err_set(PAPI_ENOEVNT, "0x%x is neither a preset nor a native event code", (unsigned)code);
}

/* Position of native `code` in the set, adding it when missing. */
static int native_slot(struct tly_evset *es, int code, int cidx)
{
	for (int i = 0; i < es->nnative; i++)
		if (es->a->native[i] == code)
			return i;
	if (es->nnative >= TLY_MAX_NATIVES)
		return tly_err_set(PAPI_ECOUNT, "event set %d already counts %d native events", es->id,
				   TLY_MAX_NATIVES);
	es->a->native[es->nnative] = code;
	es->a->native_cidx[es->nnative] = cidx;
	es->a->offset[es->nnative] = 0;
	es->a->raw[es->nnative] = 0;
	return es->nnative++;
}

/* Drop natives no event uses any more, renumbering the events' terms. */
static void compact_natives(struct tly_evset *es)
{
	int map[TLY_MAX_NATIVES], used[TLY_MAX_NATIVES] = { 0 }, n = 0;

	for (int i = 0; i < es->nevents; i++)
		for (int t = 0; t < es->a->ev[i].nterms; t++)
			used[es->a->ev[i].pos[t]] = 1;
	for (int i = 0; i < es->nnative; i++) {
		map[i] = used[i] ? n : -1;
		if (used[i]) {
			es->a->native[n] = es->a->native[i];
			es->a->native_cidx[n] = es->a->native_cidx[i];
			es->a->offset[n] = es->a->offset[i];
			n++;
		}
	}
	es->nnative = n;
	for (int i = 0; i < es->nevents; i++)
		for (int t = 0; t < es->a->ev[i].nterms; t++)
			es->a->ev[i].pos[t] = map[es->a->ev[i].pos[t]];
}

static int add_terms(struct tly_evset *es, struct tly_ev *ev, const int *codes)
{
	for (int t = 0; t < ev->nterms; t++) {
		int cidx, rc = tly_native_get(codes[t], &cidx, NULL, NULL, 0);

		if (rc == PAPI_OK)
			rc = tly_cmp_check(cidx);
		if (rc != PAPI_OK)
			return rc;
		if (es->cidx < 0)
			es->cidx = cidx;
		rc = native_slot(es, codes[t], cidx);
		if (rc < 0)
			return rc;
		ev->pos[t] = rc;
	}
	return PAPI_OK;
}

int tly_evset_add(struct tly_evset *es, int code)
{
	int codes[TLY_MAX_TERMS], rc, had_cidx = es->cidx;
	struct tly_ev ev;

	if (es->state & PAPI_RUNNING)
		return tly_err_set(PAPI_EISRUN, "event set %d is running; stop it before adding events", es->id);
	if (tly_evset_find(es, code) >= 0)
		return tly_err_set(PAPI_ECNFLCT, "event 0x%x is already in event set %d", (unsigned)code, es->id);
	if (es->nevents >= TLY_MAX_EVENTS)
		return tly_err_set(PAPI_ECOUNT, "event set %d is full (%d events)", es->id, TLY_MAX_EVENTS);
	rc = expand(code, &ev, codes);
	if (rc == PAPI_OK)
		rc = tly_evset_own_arrays(es);
	if (rc != PAPI_OK)
		return rc;
	es->a->stopvals[es->nevents] = 0;
	es->a->ev[es->nevents++] = ev;
	rc = add_terms(es, &es->a->ev[es->nevents - 1], codes);
	if (rc == PAPI_OK)
		rc = tly_parts_update(es);
	if (rc != PAPI_OK) {
		char why[TLY_ERR_DETAIL_LEN];

		memcpy(why, tly_err_detail(), sizeof why);
		es->nevents--;
		compact_natives(es);
		if (!es->nevents)
			es->cidx = had_cidx;
		tly_parts_update(es);
		tly_err_set(rc, "%s", why);
	}
	return rc;
}

int tly_evset_remove(struct tly_evset *es, int code)
{
	int i;

	if (es->state & PAPI_RUNNING)
		return tly_err_set(PAPI_EISRUN, "event set %d is running; stop it before removing events", es->id);
	i = tly_evset_find(es, code);
	if (i < 0)
		return tly_err_set(PAPI_EINVAL, "event 0x%x is not in event set %d", (unsigned)code, es->id);
	if (es->a->ev[i].overflow_threshold)
		tly_ovf_arm(es, i, 0, 0, NULL, 0);
	memmove(&es->a->ev[i], &es->a->ev[i + 1], (size_t)(es->nevents - i - 1) * sizeof es->a->ev[0]);
	memmove(&es->a->stopvals[i], &es->a->stopvals[i + 1], (size_t)(es->nevents - i - 1) * sizeof(long long));
	es->nevents--;
	compact_natives(es);
	return tly_parts_update(es);
}

int tly_evset_shutdown_all(void)
{
	pthread_mutex_lock(&reg.lock);
	for (int id = 0; id < reg.cap; id++) {
		struct tly_evset *es = atomic_exchange(slot(id), NULL);

		if (!es)
			continue;
		if (es->state & PAPI_RUNNING) {
			tly_ovf_sw_stop(es);
			tly_parts_stop(es);
		}
		es->state = PAPI_STOPPED;
		tly_evset_cleanup(es);
		free_set(es);
	}
	for (int c = 0; c < MAX_CHUNKS; c++)
		free(atomic_exchange(&reg.chunk[c], NULL));
	reg.cap = 0;
	tly_id_reset(&reg.ids);
	reg.ids.limit = MAX_CHUNKS * CHUNK_SIZE;
	pthread_mutex_unlock(&reg.lock);
	return PAPI_OK;
}
