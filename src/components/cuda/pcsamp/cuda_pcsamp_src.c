/*
 * cuda_pcsamp_src.c - what PC sampling records point at: the cubins seen by
 * the module-load callback, PC -> file:line through
 * cuptiGetSassToSourceCorrelation, and the names of launches by correlation
 * id for kernel-serialized sessions.  Process-wide: a cubin may be loaded in
 * several contexts.
 *
 * A record names its cubin by cuptiGetCubinCrc's CRC.  The load callback
 * only copies the bytes, and only of a cubin with line information
 * (cuda_pcsamp_elf.c): a program's first steps load dozens of modules,
 * and what is done for each is paid inside the program's launch.  The CRC
 * of a copy is taken at its first lookup, when records become rows.
 */
#include "cuda_pcsamp_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"

struct cubin {
	uint64_t crc;
	int crc_known;   /* 0 until the first lookup; -1: CUPTI gave none */
	void *data;
	size_t size;
};

struct launch {
	uint32_t corr;
	char *name;
};

static struct {
	pthread_mutex_t lock;
	struct cubin *c;
	size_t n, cap;
	struct launch *l;
	size_t nl, capl;
} sources = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int crc_of(const void *cubin, size_t size, uint64_t *crc)
{
	const struct tly_cu_pcs_fns *f = tly_cu_pcs_fns(NULL);
	CUpti_GetCubinCrcParams p = { .size = CUpti_GetCubinCrcParamsSize };

	if (!f)
		return -1;
	p.cubin = cubin;
	p.cubinSize = size;
	if (f->cuptiGetCubinCrc(&p) != CUPTI_SUCCESS)
		return -1;
	*crc = p.cubinCrc;
	return 0;
}

static struct cubin *find_locked(uint64_t crc)
{
	for (size_t i = 0; i < sources.n; i++) {
		struct cubin *c = &sources.c[i];

		if (!c->crc_known)
			c->crc_known = crc_of(c->data, c->size, &c->crc) == 0 ? 1 : -1;
		if (c->crc_known == 1 && c->crc == crc)
			return c;
	}
	return NULL;
}

/* The same bytes kept already (a module loaded in a second context)? */
static int kept_locked(const void *cubin, size_t size)
{
	for (size_t i = 0; i < sources.n; i++)
		if (sources.c[i].size == size && !memcmp(sources.c[i].data, cubin, size))
			return 1;
	return 0;
}

static int grow_locked(void)
{
	size_t cap = sources.cap ? 2 * sources.cap : 16;
	struct cubin *c;

	if (sources.n < sources.cap)
		return 0;
	c = realloc(sources.c, cap * sizeof *c);
	if (!c)
		return -1;
	sources.c = c;
	sources.cap = cap;
	return 0;
}

int tly_pcs_cubin_add(const void *cubin, size_t size)
{
	void *copy;
	int kept;

	/* No line information: no source line to give, nothing to keep.  An
	 * image this code cannot read is kept (CUPTI may still read it). */
	if (!cubin || !size || tly_pcs_cubin_has_lines(cubin, size) == 0)
		return 0;
	pthread_mutex_lock(&sources.lock);
	kept = kept_locked(cubin, size);
	if (!kept && grow_locked() == 0 && (copy = malloc(size)) != NULL) {
		memcpy(copy, cubin, size);
		sources.c[sources.n++] = (struct cubin){ .data = copy, .size = size };
		kept = 1;
	}
	pthread_mutex_unlock(&sources.lock);
	return kept;
}

size_t tly_pcs_cubin_count(void)
{
	size_t n;

	pthread_mutex_lock(&sources.lock);
	n = sources.n;
	pthread_mutex_unlock(&sources.lock);
	return n;
}

int tly_pcs_source(uint64_t crc, const char *func, uint64_t pc, char **file, uint32_t *line)
{
	const struct tly_cu_pcs_fns *f = tly_cu_pcs_fns(NULL);
	CUpti_GetSassToSourceCorrelationParams p = { .size = CUpti_GetSassToSourceCorrelationParamsSize };
	struct cubin *c;
	CUptiResult r = CUPTI_ERROR_UNKNOWN;
	size_t len;

	*file = NULL;
	*line = 0;
	pthread_mutex_lock(&sources.lock);
	c = f ? find_locked(crc) : NULL;
	if (c) {
		p.cubin = c->data;
		p.cubinSize = c->size;
		p.functionName = func;
		p.pcOffset = pc;
		r = f->cuptiGetSassToSourceCorrelation(&p);
	}
	pthread_mutex_unlock(&sources.lock);
	if (r != CUPTI_SUCCESS)
		return -1;
	/* CUPTI allocates both strings; the caller frees them. */
	len = (p.dirName ? strlen(p.dirName) + 1 : 0) + (p.fileName ? strlen(p.fileName) : 1) + 1;
	*file = malloc(len);
	if (*file)
		snprintf(*file, len, "%s%s%s", p.dirName && *p.dirName ? p.dirName : "",
			 p.dirName && *p.dirName ? "/" : "", p.fileName ? p.fileName : "?");
	*line = p.lineNumber;
	free(p.fileName);
	free(p.dirName);
	if (p.lineNumber)
		return 0;
	free(*file);   /* no line: the caller keeps nothing */
	*file = NULL;
	return -1;
}

void tly_pcs_launch_add(uint32_t corr, const char *name)
{
	pthread_mutex_lock(&sources.lock);
	if (sources.nl == sources.capl) {
		size_t cap = sources.capl ? 2 * sources.capl : 256;
		struct launch *nl = realloc(sources.l, cap * sizeof *nl);

		if (nl) {
			sources.l = nl;
			sources.capl = cap;
		}
	}
	if (sources.nl < sources.capl) {
		sources.l[sources.nl].corr = corr;
		sources.l[sources.nl].name = strdup(name ? name : "?");
		if (sources.l[sources.nl].name)
			sources.nl++;
	}
	pthread_mutex_unlock(&sources.lock);
}

/* Correlation ids grow, so the newest launches are at the end. */
const char *tly_pcs_launch_name(uint32_t corr)
{
	const char *name = NULL;

	pthread_mutex_lock(&sources.lock);
	for (size_t i = sources.nl; i-- > 0 && !name;)
		if (sources.l[i].corr == corr)
			name = sources.l[i].name;
	pthread_mutex_unlock(&sources.lock);
	return name;
}

void tly_pcs_cubins_free(void)
{
	pthread_mutex_lock(&sources.lock);
	for (size_t i = 0; i < sources.n; i++)
		free(sources.c[i].data);
	for (size_t i = 0; i < sources.nl; i++)
		free(sources.l[i].name);
	free(sources.c);
	free(sources.l);
	sources.c = NULL;
	sources.l = NULL;
	sources.n = sources.cap = sources.nl = sources.capl = 0;
	pthread_mutex_unlock(&sources.lock);
}
