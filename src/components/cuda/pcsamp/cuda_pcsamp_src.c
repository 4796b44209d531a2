/*
 * cuda_pcsamp_src.c - what PC sampling records point at: the cubins seen by
 * the module-load callback (kept by cuptiGetCubinCrc CRC, the key of every
 * record), PC -> file:line through cuptiGetSassToSourceCorrelation, and the
 * names of launches by correlation id for kernel-serialized sessions.
 * Process-wide: a cubin may be loaded in several contexts.
 */
#include "cuda_pcsamp_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"

struct cubin {
	uint64_t crc;
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
} src = { .lock = PTHREAD_MUTEX_INITIALIZER };

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
	for (size_t i = 0; i < src.n; i++)
		if (src.c[i].crc == crc)
			return &src.c[i];
	return NULL;
}

static int grow_locked(void)
{
	size_t cap = src.cap ? 2 * src.cap : 16;
	struct cubin *c;

	if (src.n < src.cap)
		return 0;
	c = realloc(src.c, cap * sizeof *c);
	if (!c)
		return -1;
	src.c = c;
	src.cap = cap;
	return 0;
}

void tly_pcs_cubin_add(const void *cubin, size_t size)
{
	uint64_t crc;
	void *copy;

	if (!cubin || !size || crc_of(cubin, size, &crc) != 0)
		return;
	pthread_mutex_lock(&src.lock);
	if (!find_locked(crc) && grow_locked() == 0 && (copy = malloc(size)) != NULL) {
		memcpy(copy, cubin, size);
		src.c[src.n++] = (struct cubin){ crc, copy, size };
	}
	pthread_mutex_unlock(&src.lock);
}

size_t tly_pcs_cubin_count(void)
{
	size_t n;

	pthread_mutex_lock(&src.lock);
	n = src.n;
	pthread_mutex_unlock(&src.lock);
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
	pthread_mutex_lock(&src.lock);
	c = f ? find_locked(crc) : NULL;
	if (c) {
		p.cubin = c->data;
		p.cubinSize = c->size;
		p.functionName = func;
		p.pcOffset = pc;
		r = f->cuptiGetSassToSourceCorrelation(&p);
	}
	pthread_mutex_unlock(&src.lock);
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
	return p.lineNumber ? 0 : -1;
}

void tly_pcs_launch_add(uint32_t corr, const char *name)
{
	pthread_mutex_lock(&src.lock);
	if (src.nl == src.capl) {
		size_t cap = src.capl ? 2 * src.capl : 256;
		struct launch *nl = realloc(src.l, cap * sizeof *nl);

		if (nl) {
			src.l = nl;
			src.capl = cap;
		}
	}
	if (src.nl < src.capl) {
		src.l[src.nl].corr = corr;
		src.l[src.nl].name = strdup(name ? name : "?");
		if (src.l[src.nl].name)
			src.nl++;
	}
	pthread_mutex_unlock(&src.lock);
}

/* Correlation ids grow, so the newest launches are at the end. */
const char *tly_pcs_launch_name(uint32_t corr)
{
	const char *name = NULL;

	pthread_mutex_lock(&src.lock);
	for (size_t i = src.nl; i-- > 0 && !name;)
		if (src.l[i].corr == corr)
			name = src.l[i].name;
	pthread_mutex_unlock(&src.lock);
	return name;
}

void tly_pcs_cubins_free(void)
{
	pthread_mutex_lock(&src.lock);
	for (size_t i = 0; i < src.n; i++)
		free(src.c[i].data);
	for (size_t i = 0; i < src.nl; i++)
		free(src.l[i].name);
	free(src.c);
	free(src.l);
	src.c = NULL;
	src.l = NULL;
	src.n = src.cap = src.nl = src.capl = 0;
	pthread_mutex_unlock(&src.lock);
}
