/*
 * nvtx_names.c - what NVTX names: domains (with the TALLY_NVTX_DOMAINS
 * filter), registered strings, categories and OS thread names, plus the
 * NVTX settings.  Tables only grow; readers index them without the lock
 * (entries are complete before the published count moves past them).
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

struct nv_name { int domain, kind; uint64_t id; char *name; };

static struct {
	pthread_mutex_t lock;
	pthread_once_t once;
	struct tly_nv_opts opts;
	char *domains[TLY_NV_MAX_DOMAINS];
	int enabled[TLY_NV_MAX_DOMAINS];
	int destroyed[TLY_NV_MAX_DOMAINS];
	_Atomic int ndomains;
	char *strings[TLY_NV_MAX_STRINGS];
	_Atomic int nstrings;
	struct nv_name *names;
	size_t nnames, capnames;
} nm = { .lock = PTHREAD_MUTEX_INITIALIZER, .once = PTHREAD_ONCE_INIT };

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

	nm.opts.on = bool_of(raw->nvtx, 1);
	nm.opts.counters = bool_of(raw->nvtx_counters, 1);
	nm.domains[0] = strdup("(default)");
	nm.enabled[0] = tly_nv_domain_filter("(default)");
	atomic_store(&nm.ndomains, 1);
}

const struct tly_nv_opts *tly_nv_opts(void)
{
	pthread_once(&nm.once, load_opts);
	return &nm.opts;
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
	return i < (uintptr_t)atomic_load(&nm.ndomains) ? (int)i : -1;
}

nvtxDomainHandle_t tly_nv_domain_create(const char *name)
{
	int n, found = -1;

	tly_nv_opts();
	if (!name)
		name = "";
	pthread_mutex_lock(&nm.lock);
	n = atomic_load(&nm.ndomains);
	for (int i = 1; i < n && found < 0; i++)
		if (!strcmp(nm.domains[i], name))
			found = i;
	if (found < 0 && n < TLY_NV_MAX_DOMAINS) {
		nm.domains[n] = strdup(name);
		if (nm.domains[n]) {
			nm.enabled[n] = tly_nv_domain_filter(name);
			found = n;
			atomic_store(&nm.ndomains, n + 1);
		}
	}
	if (found > 0)
		nm.destroyed[found] = 0;
	pthread_mutex_unlock(&nm.lock);
	if (found < 0)
		tly_rt_log(1, "NVTX: more than %d domains; events of '%s' go to the default domain",
			   TLY_NV_MAX_DOMAINS, name);
	return found > 0 ? (nvtxDomainHandle_t)(uintptr_t)found : NULL;
}

/* A destroyed domain keeps its index: its events stay in the file. */
void tly_nv_domain_destroy(nvtxDomainHandle_t d)
{
	int i = tly_nv_domain_index(d);

	if (i > 0)
		nm.destroyed[i] = 1;
}

int tly_nv_domain_enabled(nvtxDomainHandle_t d)
{
	int i = tly_nv_domain_index(d);

	return i >= 0 && nm.enabled[i];
}

const char *tly_nv_domain_name(int i)
{
	return i >= 0 && i < atomic_load(&nm.ndomains) ? nm.domains[i] : "?";
}

int tly_nv_ndomains(void)
{
	tly_nv_opts();
	return atomic_load(&nm.ndomains);
}

/* Handles are index + 1, so a stale or forged handle is recognised. */
nvtxStringHandle_t tly_nv_string_register(int domain, const char *s)
{
	int n;

	(void)domain;
	if (!s)
		return NULL;
	pthread_mutex_lock(&nm.lock);
	n = atomic_load(&nm.nstrings);
	for (int i = 0; i < n; i++)
		if (!strcmp(nm.strings[i], s)) {
			pthread_mutex_unlock(&nm.lock);
			return (nvtxStringHandle_t)(uintptr_t)(i + 1);
		}
	if (n < TLY_NV_MAX_STRINGS && (nm.strings[n] = strdup(s)))
		atomic_store(&nm.nstrings, ++n);
	else
		n = 0;
	pthread_mutex_unlock(&nm.lock);
	return (nvtxStringHandle_t)(uintptr_t)n;
}

const char *tly_nv_string(nvtxStringHandle_t h)
{
	uintptr_t i = (uintptr_t)h;

	return i >= 1 && i <= (uintptr_t)atomic_load(&nm.nstrings) ? nm.strings[i - 1] : NULL;
}

/* kind: 0 category, 1 OS thread. */
void tly_nv_name_add(int domain, int kind, uint64_t id, const char *name)
{
	pthread_mutex_lock(&nm.lock);
	if (nm.nnames == nm.capnames) {
		size_t cap = nm.capnames ? nm.capnames * 2 : 16;
		void *p = realloc(nm.names, cap * sizeof *nm.names);

		if (!p) {
			pthread_mutex_unlock(&nm.lock);
			return;
		}
		nm.names = p;
		nm.capnames = cap;
	}
	nm.names[nm.nnames] = (struct nv_name){ domain, kind, id, strdup(name ? name : "") };
	if (nm.names[nm.nnames].name)
		nm.nnames++;
	pthread_mutex_unlock(&nm.lock);
}

size_t tly_nv_names(int i, int *domain, int *kind, uint64_t *id, const char **name)
{
	if ((size_t)i >= nm.nnames)
		return nm.nnames;
	*domain = nm.names[i].domain;
	*kind = nm.names[i].kind;
	*id = nm.names[i].id;
	*name = nm.names[i].name;
	return nm.nnames;
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
