/*
 * cuda_config.c - config images for metric lists, the passes they need,
 * and packing a list into one-pass groups (the groups of group sets).
 */
#include "cuda_internal.h"

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
	ip.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
	ip.pChipName = chip;
	ip.pCounterAvailabilityImage = avail;
	r = pti->cuptiProfilerHostInitialize(&ip);
	if (r != CUPTI_SUCCESS)
		return tly_cu_pti_err(r, "cuptiProfilerHostInitialize");
	out->host = ip.pHostObject;
	rc = add_metrics(pti, out, names, n);
	if (rc == PAPI_OK)
		rc = get_image(pti, out);
	if (rc != PAPI_OK)
		tly_cu_config_free(out);
	tly_cu_time_end("config image (host init, metrics, image)", t);
	return rc;
}

/* Passes of a list (0 with a detail on error). */
static size_t passes_of(const char *chip, const uint8_t *avail, const char *const *names, int n)
{
	struct tly_cu_config cfg;
	size_t p;

	if (tly_cu_config_build(chip, avail, names, n, &cfg) != PAPI_OK)
		return 0;
	p = cfg.passes;
	tly_cu_config_free(&cfg);
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
	*passes = passes_of(chip, avail, names, n);
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
			if (passes_of(chip, avail, tmp, k) == 1)
				placed = g;
		}
		group_of[i] = placed >= 0 ? placed : ng++;
	}
	*ngroups = ng;
	free(tmp);
	return PAPI_OK;
}
