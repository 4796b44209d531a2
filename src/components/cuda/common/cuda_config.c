/*
 * cuda_config.c - config images for metric lists, the passes they need,
 * and packing a list into one-pass groups (the groups of group sets).
 * Counting the passes of a list builds its config image (a host object,
 * about 7 ms on an H100); the last one counted is kept as a spare, so the
 * collection that then opens on the same list takes it instead of building
 * it again (docs/gpu-startup.md).
 */
#include "cuda_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "services/err_detail.h"

void tly_cu_config_free(struct tly_cu_config *cfg)
{
	if (cfg->host) {
		CUpti_Profiler_Host_Deinitialize_Params dp = {
			.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE };

		dp.pHostObject = cfg->host;
		tly_cu_libs()->pti->cuptiProfilerHostDeinitialize(&dp);
	}
	free(cfg->image);
	memset(cfg, 0, sizeof *cfg);
}

/* ---- the spare: the config of the list whose passes were counted last --- */

static struct {
	pthread_mutex_t lock;
	char *key;
	struct tly_cu_config cfg;
	unsigned long built;   /* host objects made (for the tests) */
} spare = { .lock = PTHREAD_MUTEX_INITIALIZER };

unsigned long tly_cu_config_built(void)
{
	unsigned long n;

	pthread_mutex_lock(&spare.lock);
	n = spare.built;
	pthread_mutex_unlock(&spare.lock);
	return n;
}

/* chip, availability image and names, one per line (NULL: no memory). */
static char *list_key(const char *chip, const uint8_t *avail, const char *const *names, int n)
{
	size_t len = strlen(chip) + 40;
	char *k, *p;

	for (int i = 0; i < n; i++)
		len += strlen(names[i]) + 1;
	k = malloc(len);
	if (!k)
		return NULL;
	p = k + snprintf(k, len, "%s\n%p\n", chip, (const void *)avail);
	for (int i = 0; i < n; i++)
		p += snprintf(p, len - (size_t)(p - k), "%s\n", names[i]);
	return k;
}

/* Under spare.lock. */
static void spare_drop_locked(void)
{
	free(spare.key);
	spare.key = NULL;
	tly_cu_config_free(&spare.cfg);
}

void tly_cu_config_spare_drop(void)
{
	pthread_mutex_lock(&spare.lock);
	spare_drop_locked();
	pthread_mutex_unlock(&spare.lock);
}

/* The spare's passes (peek) or the spare itself (take) when it is `key`'s. */
static int spare_match(const char *key, struct tly_cu_config *take, size_t *passes)
{
	int hit;

	pthread_mutex_lock(&spare.lock);
	hit = key && spare.key && strcmp(spare.key, key) == 0;
	if (hit && passes)
		*passes = spare.cfg.passes;
	if (hit && take) {
		*take = spare.cfg;
		memset(&spare.cfg, 0, sizeof spare.cfg);
		free(spare.key);
		spare.key = NULL;
	}
	pthread_mutex_unlock(&spare.lock);
	return hit;
}

static int add_metrics(const struct tly_cu_pti *pti, struct tly_cu_config *cfg,
		       const char *const *names, int n)
{
	CUpti_Profiler_Host_ConfigAddMetrics_Params ap = {
		.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE };
	CUptiResult r;

	ap.pHostObject = cfg->host;
	ap.ppMetricNames = (const char **)names;
	ap.numMetrics = (size_t)n;
	r = pti->cuptiProfilerHostConfigAddMetrics(&ap);
	if (r == CUPTI_ERROR_INVALID_PARAMETER || r == CUPTI_ERROR_INVALID_METRIC_NAME)
		return tly_err_set(PAPI_ENOEVNT, "cuptiProfilerHostConfigAddMetrics: %s: a metric is not "
				   "known to this chip", tly_cu_pti_str(r));
	return tly_cu_pti_err(r, "cuptiProfilerHostConfigAddMetrics");
}

static int get_image(const struct tly_cu_pti *pti, struct tly_cu_config *cfg)
{
	CUpti_Profiler_Host_GetConfigImageSize_Params sp = {
		.structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE };
	CUpti_Profiler_Host_GetConfigImage_Params gp = {
		.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE };
	CUpti_Profiler_Host_GetNumOfPasses_Params np = {
		.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE };
	CUptiResult r;

	sp.pHostObject = cfg->host;
	r = pti->cuptiProfilerHostGetConfigImageSize(&sp);
	if (r != CUPTI_SUCCESS)
		return tly_cu_pti_err(r, "cuptiProfilerHostGetConfigImageSize");
	cfg->image = calloc(1, sp.configImageSize);
	if (!cfg->image)
		return tly_err_set(PAPI_ENOMEM, "config image of %zu bytes", sp.configImageSize);
	cfg->size = sp.configImageSize;
	gp.pHostObject = cfg->host;
	gp.configImageSize = cfg->size;
	gp.pConfigImage = cfg->image;
	r = pti->cuptiProfilerHostGetConfigImage(&gp);
	if (r != CUPTI_SUCCESS)
		return tly_cu_pti_err(r, "cuptiProfilerHostGetConfigImage");
	np.configImageSize = cfg->size;
	np.pConfigImage = cfg->image;
	r = pti->cuptiProfilerHostGetNumOfPasses(&np);
	if (r != CUPTI_SUCCESS)
		return tly_cu_pti_err(r, "cuptiProfilerHostGetNumOfPasses");
	cfg->passes = np.numOfPasses;
	return PAPI_OK;
}

int tly_cu_config_build(const char *chip, const uint8_t *avail, const char *const *names, int n,
			struct tly_cu_config *out)
{
	const struct tly_cu_pti *pti = tly_cu_libs() ? tly_cu_libs()->pti : NULL;
	CUpti_Profiler_Host_Initialize_Params ip = {
		.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE };
	CUptiResult r;
	int rc;
	double t = tly_cu_time_start();

	memset(out, 0, sizeof *out);
	if (!pti)
		return tly_err_set(PAPI_ENOSUPP, "libcupti is not loaded");
	if (n <= 0)
		return tly_err_set(PAPI_EINVAL, "config image of no metrics");
	if (chip) {
		char *key = list_key(chip, avail, names, n);
		int hit = spare_match(key, out, NULL);

		free(key);
		if (hit) {
			tly_cu_time_end("config image (the spare of the pass count)", t);
			return PAPI_OK;
		}
	}
	ip.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	ip.pChipName = chip;
	ip.pCounterAvailabilityImage = avail;
	r = pti->cuptiProfilerHostInitialize(&ip);
	if (r != CUPTI_SUCCESS)
		return tly_cu_pti_err(r, "cuptiProfilerHostInitialize");
	out->host = ip.pHostObject;
	pthread_mutex_lock(&spare.lock);
	spare.built++;
	pthread_mutex_unlock(&spare.lock);
	rc = add_metrics(pti, out, names, n);
	if (rc == PAPI_OK)
		rc = get_image(pti, out);
	if (rc != PAPI_OK)
		tly_cu_config_free(out);
	tly_cu_time_end("config image (host init, metrics, image)", t);
	return rc;
}

size_t tly_cu_config_passes(const char *chip, const uint8_t *avail, const char *const *names, int n)
{
	struct tly_cu_config cfg;
	char *key = list_key(chip ? chip : "", avail, names, n);
	size_t p = 0;

	if (spare_match(key, NULL, &p)) {
		free(key);
		return p;
	}
	if (tly_cu_config_build(chip, avail, names, n, &cfg) != PAPI_OK) {
		free(key);
		return 0;
	}
	p = cfg.passes;
	if (!key) {
		tly_cu_config_free(&cfg);
		return p;
	}
	pthread_mutex_lock(&spare.lock);
	spare_drop_locked();
	spare.key = key;
	spare.cfg = cfg;
	pthread_mutex_unlock(&spare.lock);
	return p;
}

/* First fit in list order: a metric joins the first group that still
 * needs one pass with it; a metric that alone needs several passes gets a
 * group of its own. */
int tly_cu_config_pack(const char *chip, const uint8_t *avail, const char *const *names, int n,
		       int *group_of, int *ngroups, size_t *passes)
{
	const char **tmp = calloc((size_t)n + 1, sizeof *tmp);
	int ng = 0;

	if (!tmp)
		return PAPI_ENOMEM;
	*passes = tly_cu_config_passes(chip, avail, names, n);
	if (*passes == 0) {
		free(tmp);
		return tly_err_last_code() ? tly_err_last_code() : PAPI_ECMP;
	}
	for (int i = 0; i < n; i++) {
		int placed = -1;

		for (int g = 0; g < ng && placed < 0; g++) {
			int k = 0;

			for (int j = 0; j < i; j++)
				if (group_of[j] == g)
					tmp[k++] = names[j];
			tmp[k++] = names[i];
			if (tly_cu_config_passes(chip, avail, tmp, k) == 1)
				placed = g;
		}
		group_of[i] = placed >= 0 ? placed : ng++;
	}
	*ngroups = ng;
	free(tmp);
	return PAPI_OK;
}
