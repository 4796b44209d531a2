/*
 * native.c - the process-wide native event table.
 *
 * Entries are appended, never moved out of their chunk, and only freed at
 * shutdown, so a code stays valid for the life of the library.  Lookups by
 * name go through a hash index; both are guarded by one rwlock.
 */
#include "core/native.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "tally_shared.h"
#include "core/cmp_registry.h"

#define CHUNK_BITS 10
#define CHUNK_SIZE (1 << CHUNK_BITS)
#define MAX_CHUNKS 1024 /* up to one million natives */
#define NAME_LEN PAPI_MAX_STR_LEN

struct entry {
	int cidx;
	uint64_t tok;
	char name[NAME_LEN];
};

static struct {
	pthread_rwlock_t lock;
	struct entry *chunk[MAX_CHUNKS];
	int count;
	int *hash;     /* open addressing: index+1, 0 = empty */
	int hash_size; /* power of two */
} tab = { .lock = PTHREAD_RWLOCK_INITIALIZER };

static unsigned hash_name(const char *s)
{
	return (unsigned)tly_fnv1a(TLY_FNV_BASIS, s, strlen(s));
}

static struct entry *entry_at(int idx)
{
	return &tab.chunk[idx >> CHUNK_BITS][idx & (CHUNK_SIZE - 1)];
}

/* Index of `name`, or -1.  Caller holds the lock. */
static int find(const char *name)
{
	if (!tab.hash_size)
		return -1;
	for (unsigned h = hash_name(name) & (tab.hash_size - 1);; h = (h + 1) & (tab.hash_size - 1)) {
		int v = tab.hash[h];

		if (!v)
			return -1;
		if (!strcmp(entry_at(v - 1)->name, name))
			return v - 1;
	}
}

static int grow_hash(void)
{
	int size = tab.hash_size ? tab.hash_size * 2 : 1024;
	int *h = calloc((size_t)size, sizeof *h);

	if (!h)
		return PAPI_ENOMEM;
	for (int i = 0; i < tab.count; i++) {
		unsigned k = hash_name(entry_at(i)->name) & (size - 1);

		while (h[k])
			k = (k + 1) & (size - 1);
		h[k] = i + 1;
	}
	free(tab.hash);
	tab.hash = h;
	tab.hash_size = size;
	return PAPI_OK;
}

/* Add (or find) an entry; returns its index or a negative code.  Caller
 * holds the write lock. */
static int intern(int cidx, uint64_t tok, const char *name)
{
	int idx = find(name);
	struct entry *e;
	unsigned k;

	if (idx >= 0)
		return idx;
	if (tab.count >= MAX_CHUNKS * CHUNK_SIZE)
		return tly_err_set(PAPI_ENOMEM, "native event table is full");
	if ((tab.count + 1) * 2 > tab.hash_size && grow_hash() != PAPI_OK)
		return tly_err_set(PAPI_ENOMEM, "out of memory growing the native event table");
	if (!tab.chunk[tab.count >> CHUNK_BITS]) {
		tab.chunk[tab.count >> CHUNK_BITS] = calloc(CHUNK_SIZE, sizeof(struct entry));
		if (!tab.chunk[tab.count >> CHUNK_BITS])
			return tly_err_set(PAPI_ENOMEM, "out of memory growing the native event table");
	}
	idx = tab.count;
	e = entry_at(idx);
	e->cidx = cidx;
	e->tok = tok;
	snprintf(e->name, sizeof e->name, "%s", name);
	for (k = hash_name(name) & (tab.hash_size - 1); tab.hash[k]; k = (k + 1) & (tab.hash_size - 1))
		;
	tab.hash[k] = idx + 1;
	tab.count++;
	return idx;
}

static int intern_locked(int cidx, uint64_t tok, const char *name, int *code)
{
	int idx;

	pthread_rwlock_wrlock(&tab.lock);
	idx = intern(cidx, tok, name);
	pthread_rwlock_unlock(&tab.lock);
	if (idx < 0)
		return idx;
	*code = PAPI_NATIVE_MASK | idx;
	return PAPI_OK;
}

static int cached(const char *name, int *code)
{
	int idx;

	pthread_rwlock_rdlock(&tab.lock);
	idx = find(name);
	pthread_rwlock_unlock(&tab.lock);
	if (idx < 0)
		return PAPI_ENOEVNT;
	*code = PAPI_NATIVE_MASK | idx;
	return PAPI_OK;
}

/* Split "component:::event"; returns the component index or -1 when there
 * is no prefix, -2 when the prefix names no component. */
static int split_prefix(const char *name, const char **rest)
{
	const char *sep = strstr(name, ":::");

	*rest = name;
	if (!sep)
		return -1;
	for (int i = 0; i < tly_num_components; i++) {
		size_t n = (size_t)(sep - name);
		const struct tly_component *c = tly_components[i];

		if ((strlen(c->name) == n && !strncmp(c->name, name, n)) ||
		    (strlen(c->short_name) == n && !strncmp(c->short_name, name, n))) {
			*rest = sep + 3;
			return i;
		}
	}
	return -2;
}

static int lookup_in(int cidx, const char *name, int *code)
{
	const struct tly_component *c = tly_cmp(cidx);
	char canon[NAME_LEN];
	uint64_t tok;
	int rc = tly_cmp_check(cidx);

	if (rc != PAPI_OK)
		return rc;
	if (!c->ntv_lookup)
		return tly_err_set(PAPI_ENOEVNT, "component %s has no native events", c->name);
	rc = c->ntv_lookup(name, &tok, canon, sizeof canon);
	if (rc != PAPI_OK)
		return rc;
	return intern_locked(cidx, tok, canon, code);
}

/* An unprefixed name: the components in use first, then (wake_all) the
 * deferred ones not used yet, so a CPU event never wakes a GPU driver. */
static int lookup_unprefixed(const char *name, int *code, int wake_all)
{
	int rc, first_err = PAPI_OK, pending[64] = { 0 }, n = tly_num_components < 64 ? tly_num_components : 64;
	char why[TLY_ERR_DETAIL_LEN] = "";

	for (int i = 0; i < n; i++)
		pending[i] = tly_cmp_pending(i);
	for (int pass = 0; pass < 1 + wake_all; pass++) {
		for (int i = 0; i < n; i++) {
			if (pending[i] != pass || tly_cmp_info(i)->disabled)
				continue;
			rc = lookup_in(i, name, code);
			if (rc == PAPI_OK)
				return PAPI_OK;
			if (first_err == PAPI_OK) {
				first_err = rc;
				snprintf(why, sizeof why, "%s", tly_err_detail());
			}
		}
	}
	if (first_err == PAPI_OK)
		return tly_err_set(PAPI_ENOEVNT, "event '%s' not found: no component is enabled", name);
	return tly_err_set(first_err == PAPI_EINVAL ? PAPI_EINVAL : PAPI_ENOEVNT, "event '%s' not found: %s",
			   name, why);
}

static int lookup(const char *name, int *code, int wake_all)
{
	const char *rest;
	int cidx;

	if (!name || !code)
		return tly_err_set(PAPI_EINVAL, "event name and code pointer must not be NULL");
	if (strlen(name) >= NAME_LEN)
		return tly_err_set(PAPI_EINVAL, "event name is longer than %d characters", NAME_LEN - 1);
	if (cached(name, code) == PAPI_OK)
		return PAPI_OK;
	cidx = split_prefix(name, &rest);
	if (cidx >= 0)
		return lookup_in(cidx, rest, code);
	if (cidx == -2)
		return tly_err_set(PAPI_ENOEVNT, "event '%s': no component has that name prefix", name);
	return lookup_unprefixed(name, code, wake_all);
}

int tly_native_lookup(const char *name, int *code)
{
	return lookup(name, code, 1);
}

int tly_native_lookup_awake(const char *name, int *code)
{
	return lookup(name, code, 0);
}

int tly_native_get(int code, int *cidx, uint64_t *tok, char *name, size_t len)
{
	int idx = code & ~PAPI_NATIVE_MASK;
	int rc = PAPI_OK;

	if (!IS_NATIVE(code) || idx < 0)
		return tly_err_set(PAPI_ENOEVNT, "0x%x is not a native event code", (unsigned)code);
	pthread_rwlock_rdlock(&tab.lock);
	if (idx >= tab.count) {
		rc = tly_err_set(PAPI_ENOEVNT, "native event code 0x%x is not known", (unsigned)code);
	} else {
		struct entry *e = entry_at(idx);

		if (cidx)
			*cidx = e->cidx;
		if (tok)
			*tok = e->tok;
		if (name)
			snprintf(name, len, "%s", e->name);
	}
	pthread_rwlock_unlock(&tab.lock);
	return rc;
}

static int intern_tok(int cidx, uint64_t tok, int *code)
{
	char name[NAME_LEN];
	int rc = tly_cmp(cidx)->ntv_name(tok, name, sizeof name);

	if (rc != PAPI_OK)
		return rc;
	return intern_locked(cidx, tok, name, code);
}

static int first_from(int cidx, int last, int *code)
{
	for (int i = cidx; i <= last; i++) {
		const struct tly_component *c = tly_cmp(i);
		uint64_t tok = 0;

		if (tly_cmp_info(i)->disabled || !c->ntv_enum)
			continue;
		if (c->ntv_enum(&tok, PAPI_ENUM_FIRST) == PAPI_OK)
			return intern_tok(i, tok, code);
	}
	return PAPI_ENOEVNT;
}

int tly_native_enum(int *code, int modifier, int only)
{
	int cidx = -1, last = only >= 0 ? only : tly_num_components - 1;
	uint64_t tok = 0; /* set by tly_native_get (GCC -O3 cannot tell) */
	int rc;

	if (modifier == PAPI_ENUM_FIRST)
		return first_from(only >= 0 ? only : 0, last, code);
	rc = tly_native_get(*code, &cidx, &tok, NULL, 0);
	if (rc != PAPI_OK)
		return rc;
	if (only >= 0 && cidx != only)
		return tly_err_set(PAPI_ENOEVNT, "event 0x%x belongs to another component", (unsigned)*code);
	if (!tly_cmp(cidx)->ntv_enum)
		return PAPI_ENOEVNT;
	rc = tly_cmp(cidx)->ntv_enum(&tok, modifier);
	if (rc == PAPI_OK)
		return intern_tok(cidx, tok, code);
	if (modifier == PAPI_ENUM_EVENTS && cidx < last)
		return first_from(cidx + 1, last, code);
	return PAPI_ENOEVNT;
}

int tly_native_info(int code, PAPI_event_info_t *info)
{
	int cidx = -1;
	uint64_t tok = 0; /* set by tly_native_get (GCC -O3 cannot tell) */
	char name[NAME_LEN];
	const struct tly_component *c;
	int rc = tly_native_get(code, &cidx, &tok, name, sizeof name);

	if (rc != PAPI_OK)
		return rc;
	c = tly_cmp(cidx);
	memset(info, 0, sizeof *info);
	if (c->ntv_describe) {
		rc = c->ntv_describe(tok, name, info);
		if (rc != PAPI_OK)
			return rc;
	}
	info->event_code = (unsigned)code;
	snprintf(info->symbol, sizeof info->symbol, "%s", name);
	info->component_index = cidx;
	return PAPI_OK;
}

void tly_native_shutdown(void)
{
	pthread_rwlock_wrlock(&tab.lock);
	for (int i = 0; i < MAX_CHUNKS; i++) {
		free(tab.chunk[i]);
		tab.chunk[i] = NULL;
	}
	free(tab.hash);
	tab.hash = NULL;
	tab.hash_size = 0;
	tab.count = 0;
	pthread_rwlock_unlock(&tab.lock);
}
