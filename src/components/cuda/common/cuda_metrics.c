/*
 * cuda_metrics.c - the metric catalog of a chip: base metrics with their
 * description, hardware unit, unit, type and submetrics, read from the
 * Profiler Host API and cached on disk per (chip, CUPTI version) under
 * $XDG_CACHE_HOME/tally (or ~/.cache/tally).  The cache is a text file,
 * read in one piece and split in place; a file that does not parse is
 * ignored and rewritten.
 */
#include "cuda_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"
#include "services/err_detail.h"
#include "services/safe_file.h"
#include "tally_shared.h"

#define MAX_CHIPS 8
#define CACHE_MAGIC "tally-cuda-catalog 1"
#define CACHE_MAX (256 << 20)   /* a catalog is a few MB; anything far larger is not one */

static struct {
	pthread_mutex_t lock;
	int n;
	struct tly_cu_catalog *cat[MAX_CHIPS];
} catalogs = { .lock = PTHREAD_MUTEX_INITIALIZER };

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char *dup_clean(const char *s)
{
	char *d = strdup(s ? s : "");

	for (char *p = d; p && *p; p++)
		if (*p == '\t' || *p == '\n' || *p == '\r')
			*p = ' ';
	return d;
}

static void free_metric(const struct tly_cu_catalog *c, struct tly_cu_metric *m)
{
	if (!c->text) {   /* strings of their own (read from CUPTI), not views into the cache's text */
		free(m->name);
		free(m->desc);
		free(m->hw);
		free(m->unit);
		for (int k = 0; k < m->nsub; k++)
			free(m->sub[k]);
	}
	free(m->sub);
}

static void free_catalog(struct tly_cu_catalog *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		free_metric(c, &c->m[i]);
	for (int i = 0; i < c->ndom; i++)
		free(c->dom[i]);
	free(c->m);
	free(c->dom);
	free(c->dom_count);
	free(c->text);
	free(c);
}

static void cache_path(const char *chip, char *buf, size_t len)
{
	uint32_t v = 0;

	tly_cu_libs()->pti->cuptiGetVersion(&v);
	snprintf(buf, len, "cuda-%s-cupti%u.catalog", chip, (unsigned)v);
}

/* ---- reading from the host API ------------------------------------------ */

static int add_subs(const struct tly_cu_pti *pti, CUpti_Profiler_Host_Object *h, struct tly_cu_metric *m)
{
	CUpti_Profiler_Host_GetSubMetrics_Params s = { .structSize = CUpti_Profiler_Host_GetSubMetrics_Params_STRUCT_SIZE };
	CUptiResult r;

	s.pHostObject = h;
	s.metricType = (CUpti_MetricType)m->type;
	s.pMetricName = m->name;
	r = pti->cuptiProfilerHostGetSubMetrics(&s);
	if (r != CUPTI_SUCCESS)
		return tly_cu_pti_err(r, "cuptiProfilerHostGetSubMetrics");
	m->sub = calloc(s.numOfSubmetrics + 1, sizeof *m->sub);
	if (!m->sub)
		return PAPI_ENOMEM;
	for (size_t k = 0; k < s.numOfSubmetrics; k++)
		m->sub[m->nsub++] = dup_clean(s.ppSubMetrics[k]);
	return PAPI_OK;
}

static int add_props(const struct tly_cu_pti *pti, CUpti_Profiler_Host_Object *h, struct tly_cu_metric *m)
{
	CUpti_Profiler_Host_GetMetricProperties_Params p = {
		.structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE };
	CUptiResult r;

	p.pHostObject = h;
	p.pMetricName = m->name;
	r = pti->cuptiProfilerHostGetMetricProperties(&p);
	if (r != CUPTI_SUCCESS)
		return tly_cu_pti_err(r, "cuptiProfilerHostGetMetricProperties");
	m->desc = dup_clean(p.pDescription);
	m->hw = dup_clean(p.pHwUnit);
	m->unit = dup_clean(p.pDimUnit);
	return PAPI_OK;
}

static int read_type(const struct tly_cu_pti *pti, CUpti_Profiler_Host_Object *h, int type,
		     struct tly_cu_catalog *c)
{
	CUpti_Profiler_Host_GetBaseMetrics_Params b = { .structSize = CUpti_Profiler_Host_GetBaseMetrics_Params_STRUCT_SIZE };
	CUptiResult r;
	struct tly_cu_metric *nm;
	int rc = PAPI_OK;

	b.pHostObject = h;
	b.metricType = (CUpti_MetricType)type;
	r = pti->cuptiProfilerHostGetBaseMetrics(&b);
	if (r != CUPTI_SUCCESS)
		return tly_cu_pti_err(r, "cuptiProfilerHostGetBaseMetrics");
	nm = realloc(c->m, (size_t)(c->n + (int)b.numMetrics) * sizeof *c->m);
	if (!nm)
		return PAPI_ENOMEM;
	c->m = nm;
	for (size_t i = 0; i < b.numMetrics && rc == PAPI_OK; i++) {
		struct tly_cu_metric *m = &c->m[c->n++];

		memset(m, 0, sizeof *m);
		m->name = dup_clean(b.ppMetricNames[i]);
		m->type = type;
		rc = add_props(pti, h, m);
		if (rc == PAPI_OK)
			rc = add_subs(pti, h, m);
	}
	return rc;
}

static int read_host_api(struct tly_cu_catalog *c)
{
	const struct tly_cu_pti *pti = tly_cu_libs()->pti;
	CUpti_Profiler_Host_Initialize_Params ip = { .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE };
	CUpti_Profiler_Host_Deinitialize_Params dp = { .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE };
	CUptiResult r;
	int rc = PAPI_OK;

	ip.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	ip.pChipName = c->chip;
	r = pti->cuptiProfilerHostInitialize(&ip);
	if (r != CUPTI_SUCCESS)
		return tly_cu_pti_err(r, "cuptiProfilerHostInitialize (chip unknown to this CUPTI?)");
	for (int t = 0; t < CUPTI_METRIC_TYPE__COUNT && rc == PAPI_OK; t++)
		rc = read_type(pti, ip.pHostObject, t, c);
	dp.pHostObject = ip.pHostObject;
	pti->cuptiProfilerHostDeinitialize(&dp);
	return rc;
}

/* ---- the on-disk cache ---------------------------------------------------- */

/* Written under a unique name in the user's own cache directory (created
 * 0700), then renamed: a reader never sees half a catalog. */
static void write_cache(const struct tly_cu_catalog *c)
{
	char path[256], tmp[300], dir[768];
	FILE *f;
	int dfd;

	tly_cu_cache_dir(dir, sizeof dir);
	if ((dfd = tly_safe_private_dir(dir)) < 0)
		return;   /* a cache is an optimisation: no cache then */
	cache_path(c->chip, path, sizeof path);
	f = tly_safe_create_at(dfd, path, tmp, sizeof tmp);
	if (!f) {
		close(dfd);
		return;
	}
	fprintf(f, "%s %s %d\n", CACHE_MAGIC, c->chip, c->n);
	for (int i = 0; i < c->n; i++) {
		const struct tly_cu_metric *m = &c->m[i];

		fprintf(f, "%d\t%s\t%s\t%s\t%s\t", m->type, m->name, m->hw, m->unit, m->desc);
		for (int k = 0; k < m->nsub; k++)
			fprintf(f, "%s%s", k ? " " : "", m->sub[k]);
		fputc('\n', f);
	}
	(void)tly_safe_commit_at(f, dfd, tmp, path, 1);
	close(dfd);
}

/* Splits one line of the cache in place: six tab-separated fields, the
 * last a space-separated list of submetrics.  The strings stay views into
 * the file's text (one read, no copy per string: 4.4 MB and some 100,000
 * submetric names on an H100).  0, or -1 when the line is not one. */
static int parse_line(char *line, struct tly_cu_metric *m)
{
	char *f[6], *p = line;
	int n = 0, cap = 1;

	f[n++] = p;
	while (n < 6 && (p = strchr(p, '\t'))) {
		*p++ = '\0';
		f[n++] = p;
	}
	if (n != 6)
		return -1;
	m->type = atoi(f[0]);
	m->name = f[1];
	m->hw = f[2];
	m->unit = f[3];
	m->desc = f[4];
	for (p = f[5]; *p; p++)
		cap += *p == ' ';
	m->sub = calloc((size_t)cap + 1, sizeof *m->sub);
	if (!m->sub)
		return -1;
	for (char *save = NULL, *t = strtok_r(f[5], " ", &save); t; t = strtok_r(NULL, " ", &save))
		m->sub[m->nsub++] = t;
	return 0;
}

/* The whole file in one buffer, NUL-terminated; NULL when unreadable. */
static char *slurp(FILE *f)
{
	struct stat st;
	char *buf;

	if (fstat(fileno(f), &st) != 0 || st.st_size <= 0 || st.st_size > CACHE_MAX)
		return NULL;
	buf = malloc((size_t)st.st_size + 1);
	if (buf && fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		free(buf);
		return NULL;
	}
	if (buf)
		buf[st.st_size] = '\0';
	return buf;
}

static int read_cache(struct tly_cu_catalog *c)
{
	char path[256], want[256], dir[768], *p, *eol;
	FILE *f;
	int n = 0, dfd;

	tly_cu_cache_dir(dir, sizeof dir);
	if ((dfd = tly_safe_private_dir(dir)) < 0)
		return -1;   /* not the user's own directory: not trusted */
	cache_path(c->chip, path, sizeof path);
	f = tly_safe_open_own_at(dfd, path);
	close(dfd);
	if (!f)
		return -1;
	c->text = slurp(f);
	fclose(f);
	snprintf(want, sizeof want, "%s %s ", CACHE_MAGIC, c->chip);
	if (!c->text || strncmp(c->text, want, strlen(want)) != 0 || sscanf(c->text + strlen(want), "%d", &n) != 1 ||
	    n <= 0 || !(eol = strchr(c->text, '\n')) || !(c->m = calloc((size_t)n, sizeof *c->m)))
		goto bad;
	for (p = eol + 1; c->n < n && *p; p = eol + 1) {
		if (!(eol = strchr(p, '\n')))
			goto bad;   /* a last line cut short */
		*eol = '\0';
		if (parse_line(p, &c->m[c->n]) != 0)
			goto bad;
		c->n++;
	}
	if (c->n != n || *p)
		goto bad;
	return 0;
bad:
	for (int i = 0; i < c->n; i++)
		free_metric(c, &c->m[i]);
	free(c->m);
	free(c->text);
	c->m = NULL;
	c->text = NULL;
	c->n = 0;
	return -1;
}

/* ---- index ------------------------------------------------------------------- */

static int cmp_metric(const void *a, const void *b)
{
	return strcmp(((const struct tly_cu_metric *)a)->name, ((const struct tly_cu_metric *)b)->name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int find_dom(const struct tly_cu_catalog *c, const char *hw)
{
	char *const *p = bsearch(&hw, c->dom, (size_t)c->ndom, sizeof *c->dom, cmp_str);

	return p ? (int)(p - c->dom) : -1;
}

static int build_index(struct tly_cu_catalog *c)
{
	qsort(c->m, (size_t)c->n, sizeof *c->m, cmp_metric);
	c->dom = calloc((size_t)c->n + 1, sizeof *c->dom);
	c->dom_count = calloc((size_t)c->n + 1, sizeof *c->dom_count);
	if (!c->dom || !c->dom_count)
		return PAPI_ENOMEM;
	for (int i = 0; i < c->n; i++) {
		int seen = 0;

		for (int d = 0; d < c->ndom && !seen; d++)
			seen = strcmp(c->dom[d], c->m[i].hw) == 0;
		if (!seen)
			c->dom[c->ndom++] = strdup(c->m[i].hw);
	}
	qsort(c->dom, (size_t)c->ndom, sizeof *c->dom, cmp_str);
	for (int i = 0; i < c->n; i++) {
		c->m[i].dom = find_dom(c, c->m[i].hw);
		c->dom_count[c->m[i].dom]++;
	}
	return PAPI_OK;
}

static struct tly_cu_catalog *load_catalog(const char *chip)
{
	struct tly_cu_catalog *c = calloc(1, sizeof *c);
	double t0 = now_s();
	int rc;

	if (!c)
		return NULL;
	snprintf(c->chip, sizeof c->chip, "%s", chip);
	c->from_cache = !tly_setting_flag(TLY_SET_cuda_no_cache) && read_cache(c) == 0;
	rc = c->from_cache ? PAPI_OK : read_host_api(c);
	if (rc == PAPI_OK && !c->from_cache)
		write_cache(c);
	if (rc == PAPI_OK)
		rc = build_index(c);
	if (rc != PAPI_OK || c->n == 0) {
		if (rc == PAPI_OK)
			tly_err_set(PAPI_ENOSUPP, "chip %s: CUPTI lists no metrics", chip);
		free_catalog(c);
		return NULL;
	}
	c->seconds = now_s() - t0;
	return c;
}

const struct tly_cu_catalog *tly_cu_catalog_get(const char *chip)
{
	struct tly_cu_catalog *c = NULL;

	if (!tly_cu_libs() || !tly_cu_libs()->pti) {
		tly_err_set(PAPI_ENOSUPP, "libcupti is not loaded");
		return NULL;
	}
	pthread_mutex_lock(&catalogs.lock);
	for (int i = 0; i < catalogs.n && !c; i++)
		if (strcmp(catalogs.cat[i]->chip, chip) == 0)
			c = catalogs.cat[i];
	if (!c && catalogs.n < MAX_CHIPS) {
		c = load_catalog(chip);
		if (c)
			catalogs.cat[catalogs.n++] = c;
	}
	pthread_mutex_unlock(&catalogs.lock);
	return c;
}

void tly_cu_catalog_free_all(void)
{
	pthread_mutex_lock(&catalogs.lock);
	for (int i = 0; i < catalogs.n; i++)
		free_catalog(catalogs.cat[i]);
	catalogs.n = 0;
	pthread_mutex_unlock(&catalogs.lock);
}

static int find_base(const struct tly_cu_catalog *c, const char *name)
{
	struct tly_cu_metric key = { .name = (char *)name };
	const struct tly_cu_metric *m = bsearch(&key, c->m, (size_t)c->n, sizeof *c->m, cmp_metric);

	return m ? (int)(m - c->m) : -1;
}

int tly_cu_catalog_find(const struct tly_cu_catalog *c, const char *full, int *metric, int *variant)
{
	char buf[TALLY_GPU_NAME_LEN];

	snprintf(buf, sizeof buf, "%s", full);
	/* Try each '.' from the right as the base/submetric boundary. */
	for (char *dot = strrchr(buf, '.'); dot; dot = strrchr(buf, '.')) {
		const char *sub = full + (dot - buf);
		int i;

		*dot = '\0';
		i = find_base(c, buf);
		for (int k = 0; i >= 0 && k < c->m[i].nsub; k++)
			if (strcmp(c->m[i].sub[k], sub) == 0) {
				*metric = i;
				*variant = k + 1;
				return 0;
			}
	}
	return -1;
}

int tly_cu_default_variant(const struct tly_cu_metric *m)
{
	static const char *const pref[] = { ".sum", ".ratio", ".avg.pct_of_peak_sustained_elapsed" };
	const char *want = pref[m->type >= 0 && m->type < 3 ? m->type : 0];

	for (int k = 0; k < m->nsub; k++)
		if (strcmp(m->sub[k], want) == 0)
			return k + 1;
	return m->nsub > 0 ? 1 : 0;
}

void tly_cu_full_name(const struct tly_cu_catalog *c, int metric, int variant, char *buf, size_t len)
{
	const struct tly_cu_metric *m = &c->m[metric];

	snprintf(buf, len, "%s%s", m->name, variant > 0 && variant <= m->nsub ? m->sub[variant - 1] : "");
}
