/*
 * nvtx_names.c - what NVTX names: domains (with the TALLY_NVTX_DOMAINS
 * filter), registered strings, categories and OS thread names, plus the
 * NVTX settings.  Tables only grow; readers index them without the lock
 * (entries are complete before the published count moves past them).
 * Registered strings live in chunks that never move, found again through
 * a hash index under the lock: registration is O(1) whatever the number
 * of strings (a linear search made 100,000 strings take 24.4 s).
 */
#include "nvtx/nvtx.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

#include "runtime/rt.h"
#include "tally_shared.h"

struct nv_name { int domain, kind; uint64_t id; char *name; };

#define STR_CHUNK 4096   /* strings per chunk; TLY_NV_MAX_STRINGS / STR_CHUNK chunks */

static struct {
	pthread_mutex_t lock;
	pthread_once_t once;
	struct tly_nv_opts opts;
	char *domains[TLY_NV_MAX_DOMAINS];
	int enabled[TLY_NV_MAX_DOMAINS];
	int destroyed[TLY_NV_MAX_DOMAINS];
	_Atomic int ndomains;
	char **strings[TLY_NV_MAX_STRINGS / STR_CHUNK];   /* chunks, published before the count */
	_Atomic int nstrings;
	struct nv_slot { uint32_t hash; int id; } *index;   /* open addressing: id = string number + 1, 0 free */
	size_t nindex;         /* a power of 2, at least twice nstrings */
	long domains_over;     /* domains beyond TLY_NV_MAX_DOMAINS: said once, counted */
	struct nv_name *names;
	size_t nnames, capnames;
} name_reg = { .lock = PTHREAD_MUTEX_INITIALIZER, .once = PTHREAD_ONCE_INIT };

static int bool_of(const char *v, int def)
{
	if (!v || !*v)
		return def;
	if (!strcasecmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "off") || !strcasecmp(v, "false"))
		return 0;
	return 1;
}

static void load_opts(void)
{
	const struct tly_rt_cfg *raw = &tly_rt_proc()->opt.raw;

	name_reg.opts.on = bool_of(raw->nvtx, 1);
	name_reg.opts.counters = bool_of(raw->nvtx_counters, 1);
	name_reg.domains[0] = strdup("(default)");
	name_reg.enabled[0] = tly_nv_domain_filter("(default)");
	atomic_store(&name_reg.ndomains, 1);
}

const struct tly_nv_opts *tly_nv_opts(void)
{
	pthread_once(&name_reg.once, load_opts);
	return &name_reg.opts;
}

/* TALLY_NVTX_DOMAINS: comma-separated names; "-name" excludes.  With any
 * plain name listed only those are enabled; otherwise all but excluded. */
int tly_nv_domain_filter(const char *name)
{
	const char *list = tly_rt_proc()->opt.raw.nvtx_domains;
	int includes = 0, hit = 0;

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		int ex = *p == '-';
		const char *s = p + ex;
		size_t sl = len - (size_t)ex;

		if (!ex)
			includes = 1;
		if (sl == strlen(name) && !strncmp(s, name, sl))
			hit = ex ? -1 : 1;
		p += len + (p[len] == ',');
	}
	if (hit)
		return hit > 0;
	return !includes;
}

int tly_nv_domain_index(nvtxDomainHandle_t d)
{
	uintptr_t i = (uintptr_t)d;

	tly_nv_opts();
	if (!d)
		return 0;
	return i < (uintptr_t)atomic_load(&name_reg.ndomains) ? (int)i : -1;
}

nvtxDomainHandle_t tly_nv_domain_create(const char *name)
{
	int n, found = -1;
	long over;

	tly_nv_opts();
	if (!name)
		name = "";
	pthread_mutex_lock(&name_reg.lock);
	n = atomic_load(&name_reg.ndomains);
	for (int i = 1; i < n && found < 0; i++)
		if (!strcmp(name_reg.domains[i], name))
			found = i;
	if (found < 0 && n < TLY_NV_MAX_DOMAINS) {
		name_reg.domains[n] = strdup(name);
		if (name_reg.domains[n]) {
			name_reg.enabled[n] = tly_nv_domain_filter(name);
			found = n;
			atomic_store(&name_reg.ndomains, n + 1);
		}
	}
	if (found > 0)
		name_reg.destroyed[found] = 0;
	over = found < 0 ? ++name_reg.domains_over : 0;
	pthread_mutex_unlock(&name_reg.lock);
	if (over == 1)   /* once: 10,000 domains once printed 8,979 lines */
		tly_rt_log(1, "NVTX: more than %d domains; the events of further domains ('%s' first) go to the "
			   "default domain", TLY_NV_MAX_DOMAINS, name);
	return found > 0 ? (nvtxDomainHandle_t)(uintptr_t)found : NULL;
}

long tly_nv_domains_over(void)
{
	long n;

	pthread_mutex_lock(&name_reg.lock);
	n = name_reg.domains_over;
	pthread_mutex_unlock(&name_reg.lock);
	return n;
}

/* A destroyed domain keeps its index: its events stay in the file. */
void tly_nv_domain_destroy(nvtxDomainHandle_t d)
{
	int i = tly_nv_domain_index(d);

	if (i > 0)
		name_reg.destroyed[i] = 1;
}

int tly_nv_domain_enabled(nvtxDomainHandle_t d)
{
	int i = tly_nv_domain_index(d);

	return i >= 0 && name_reg.enabled[i];
}

const char *tly_nv_domain_name(int i)
{
	return i >= 0 && i < atomic_load(&name_reg.ndomains) ? name_reg.domains[i] : "?";
}

int tly_nv_ndomains(void)
{
	tly_nv_opts();
	return atomic_load(&name_reg.ndomains);
}

static char *string_at(int i)
{
	return name_reg.strings[i / STR_CHUNK][i % STR_CHUNK];
}

/* The slot of s in the index: its string's, or the free one it would
 * take (the hash kept in the slot spares the string's cache miss). */
static size_t index_slot(const char *s, uint64_t h)
{
	size_t m = name_reg.nindex - 1, k = (size_t)h & m;

	while (name_reg.index[k].id
	       && (name_reg.index[k].hash != (uint32_t)h || strcmp(string_at(name_reg.index[k].id - 1), s) != 0))
		k = (k + 1) & m;
	return k;
}

/* Room for one more string in the index (twice the strings, at least):
 * 0, or -1 when out of memory. */
static int index_room(int n)
{
	size_t size = name_reg.nindex ? name_reg.nindex : 1024;
	struct nv_slot *old = name_reg.index;
	size_t oldn = name_reg.nindex;

	if (name_reg.nindex && (size_t)(n + 1) * 2 <= name_reg.nindex)
		return 0;
	while ((size_t)(n + 1) * 2 > size)
		size *= 4;   /* fewer rehashes: each moves every slot, a cache miss apiece */
	if (!(name_reg.index = calloc(size, sizeof *name_reg.index))) {
		name_reg.index = old;
		return -1;
	}
	name_reg.nindex = size;
	for (size_t i = 0; i < oldn; i++)   /* the hash is kept: no string is read */
		if (old[i].id) {
			size_t k = old[i].hash & (size - 1);

			while (name_reg.index[k].id)
				k = (k + 1) & (size - 1);
			name_reg.index[k] = old[i];
		}
	free(old);
	return 0;
}

/* String n stored (its chunk made when new): 0, or -1. */
static int string_store(int n, const char *s)
{
	char **c = name_reg.strings[n / STR_CHUNK];

	if (!c && !(c = name_reg.strings[n / STR_CHUNK] = calloc(STR_CHUNK, sizeof *c)))
		return -1;
	return (c[n % STR_CHUNK] = strdup(s)) ? 0 : -1;
}

/* Handles are index + 1, so a stale or forged handle is recognised. */
nvtxStringHandle_t tly_nv_string_register(int domain, const char *s)
{
	uint64_t h;
	size_t k;
	int n;

	(void)domain;
	if (!s)
		return NULL;
	h = tly_fnv1a(TLY_FNV_BASIS, s, strlen(s));
	pthread_mutex_lock(&name_reg.lock);
	n = atomic_load(&name_reg.nstrings);
	if (name_reg.nindex && name_reg.index[k = index_slot(s, h)].id) {
		n = name_reg.index[k].id;
		pthread_mutex_unlock(&name_reg.lock);
		return (nvtxStringHandle_t)(uintptr_t)n;
	}
	if (n < TLY_NV_MAX_STRINGS && index_room(n) == 0 && string_store(n, s) == 0) {
		name_reg.index[index_slot(s, h)] = (struct nv_slot){ (uint32_t)h, n + 1 };
		atomic_store(&name_reg.nstrings, ++n);
	} else {
		n = 0;
	}
	pthread_mutex_unlock(&name_reg.lock);
	return (nvtxStringHandle_t)(uintptr_t)n;
}

const char *tly_nv_string(nvtxStringHandle_t h)
{
	uintptr_t i = (uintptr_t)h;

	return i >= 1 && i <= (uintptr_t)atomic_load(&name_reg.nstrings) ? string_at((int)i - 1) : NULL;
}

/* kind: 0 category, 1 OS thread. */
void tly_nv_name_add(int domain, int kind, uint64_t id, const char *name)
{
	pthread_mutex_lock(&name_reg.lock);
	if (name_reg.nnames == name_reg.capnames) {
		size_t cap = name_reg.capnames ? name_reg.capnames * 2 : 16;
		void *p = realloc(name_reg.names, cap * sizeof *name_reg.names);

		if (!p) {
			pthread_mutex_unlock(&name_reg.lock);
			return;
		}
		name_reg.names = p;
		name_reg.capnames = cap;
	}
	name_reg.names[name_reg.nnames] = (struct nv_name){ domain, kind, id, strdup(name ? name : "") };
	if (name_reg.names[name_reg.nnames].name)
		name_reg.nnames++;
	pthread_mutex_unlock(&name_reg.lock);
}

size_t tly_nv_names(int i, int *domain, int *kind, uint64_t *id, const char **name)
{
	if ((size_t)i >= name_reg.nnames)
		return name_reg.nnames;
	*domain = name_reg.names[i].domain;
	*kind = name_reg.names[i].kind;
	*id = name_reg.names[i].id;
	*name = name_reg.names[i].name;
	return name_reg.nnames;
}

static size_t put_utf8(uint32_t c, char *o)
{
	if (c < 0x80) { o[0] = (char)c; return 1; }
	if (c < 0x800) { o[0] = (char)(0xC0 | c >> 6); o[1] = (char)(0x80 | (c & 0x3F)); return 2; }
	if (c < 0x10000) {
		o[0] = (char)(0xE0 | c >> 12); o[1] = (char)(0x80 | ((c >> 6) & 0x3F));
		o[2] = (char)(0x80 | (c & 0x3F));
		return 3;
	}
	o[0] = (char)(0xF0 | c >> 18); o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
	o[2] = (char)(0x80 | ((c >> 6) & 0x3F)); o[3] = (char)(0x80 | (c & 0x3F));
	return 4;
}

/* unit: 2 (UTF-16) or 4 (UTF-32 / wchar_t); stops at NUL or maxunits. */
void tly_nv_utf8(const void *src, size_t unit, size_t maxunits, char *dst, size_t len)
{
	const unsigned char *s = src;
	size_t at = 0;

	for (size_t i = 0; i < maxunits && at + 5 < len; i++) {
		uint32_t c;

		if (unit == 2) {
			uint16_t u;
			memcpy(&u, s + 2 * i, 2);
			c = u;
			if (c >= 0xD800 && c < 0xDC00 && i + 1 < maxunits) {
				uint16_t lo;
				memcpy(&lo, s + 2 * (i + 1), 2);
				if (lo >= 0xDC00 && lo < 0xE000) {
					c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
					i++;
				}
			}
		} else {
			memcpy(&c, s + 4 * i, 4);
		}
		if (!c)
			break;
		at += put_utf8(c > 0x10FFFF ? 0xFFFD : c, dst + at);
	}
	if (len)
		dst[at < len ? at : len - 1] = '\0';
}
