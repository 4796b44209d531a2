/*
 * cuda_component.c - the `cuda` PAPI component: GPU metrics as native
 * events "cuda:::<metric>:device=<n>".
 *
 * PAPI semantics over the work launched between start and read/stop:
 * by default each device's events are collected as one user range
 * (UserRange + UserReplay, one pass), popped and evaluated at every
 * PAPI_read and restarted, so counters accumulate exactly across reads.
 * A set whose metrics need several passes fails with PAPI_EMULPASS unless
 * kernel replay is on (TALLY_CUDA_REPLAY=kernel, or
 * tally_gpu_kernel_replay_enable on a context), in which case it is
 * collected per kernel (AutoRange + KernelReplay) and summed.
 */
#include "components/cuda/common/cuda_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "components/component.h"
#include "services/err_detail.h"
#include "tally_shared.h"

/* Native tokens: (device << TLY_CU_DEV_SHIFT) | tly_cu_evid(metric, variant),
 * variant 0 = the metric's default (cuda_internal.h). */
struct cu_ev {
	int dev;
	char metric[TALLY_GPU_NAME_LEN];
	int is_counter;
	double acc;
};

struct acc_ctx {
	struct cu_set *s;
	int dev;
};

struct cu_set {
	int n;
	struct cu_ev ev[TLY_CU_MAX_EV];
	int running;
	struct tly_cu_coll *coll[TLY_CU_MAX_DEV];
	struct acc_ctx full[TLY_CU_MAX_DEV];   /* ud of images harvested when full (kernel replay) */
};

struct cu_ctl {
	struct cu_set *s;
};

/* ---- init ------------------------------------------------------------------------ */

static int first_profilable(char *why, size_t len)
{
	for (int i = 0; i < tly_cu_ndevices(); i++) {
		if (tly_cu_device(i)->profiling_ok && tly_cu_device_catalog(i))
			return i;
		snprintf(why, len, "GPU %d (%s): %s", i, tly_cu_device(i)->name,
			 tly_cu_device(i)->reason[0] ? tly_cu_device(i)->reason : tly_err_detail());
	}
	return -1;
}

static int cu_init(PAPI_component_info_t *info)
{
	const char *why = "";
	uint32_t v = 0;
	int rc = tly_cu_discover(&why);

	info->num_cntrs = TLY_CU_MAX_EV;
	info->num_mpx_cntrs = TLY_CU_MAX_EV;
	info->default_domain = PAPI_DOM_ALL;
	info->available_domains = PAPI_DOM_ALL;
	info->default_granularity = PAPI_GRN_SYS;
	info->available_granularities = PAPI_GRN_SYS;
	if (rc == PAPI_OK && (!tly_cu_libs()->drv || tly_cu_ndevices() == 0))
		rc = PAPI_ENOSUPP;
	if (rc != PAPI_OK) {
		info->disabled = rc;
		snprintf(info->disabled_reason, sizeof info->disabled_reason, "%s", why);
		return PAPI_OK;
	}
	tly_cu_libs()->pti->cuptiGetVersion(&v);
	snprintf(info->support_version, sizeof info->support_version, "CUPTI API %u", (unsigned)v);
	/* No CUPTI subscription here: it is taken when a GPU feature needs it
	 * (kernel names under replay, PC sampling, the launch hook), so an
	 * application's own CUPTI tool works beside a library with no GPU
	 * events (docs/gpu.md, coexistence). */
	if (first_profilable(info->disabled_reason, sizeof info->disabled_reason) < 0) {
		info->disabled = PAPI_ENOSUPP;
		return PAPI_OK;
	}
	info->disabled_reason[0] = '\0';
	return PAPI_OK;
}

static void cu_shutdown(void)
{
	tly_cu_cb_shutdown();
	tly_cu_ctxreg_shutdown();
	tly_cu_config_spare_drop();
	tly_cu_catalog_free_all();
	tly_cu_discover_shutdown();
}

/* ---- native events -------------------------------------------------------------------- */

static void tok_split(uint64_t tok, int *dev, int *met, int *var)
{
	*dev = (int)(tok >> TLY_CU_DEV_SHIFT);
	*met = tly_cu_evid_metric(tok);
	*var = tly_cu_evid_variant(tok);
}

static uint64_t tok_make(int dev, int met, int var)
{
	return ((uint64_t)dev << TLY_CU_DEV_SHIFT) | tly_cu_evid(met, var);
}

static int cu_ntv_enum(uint64_t *tok, int modifier)
{
	int dev = 0, met = 0, var = 0;
	const struct tly_cu_catalog *c;

	if (modifier != PAPI_ENUM_FIRST)
		tok_split(*tok, &dev, &met, &var);
	if (modifier == PAPI_NTV_ENUM_UMASKS) {
		c = tly_cu_device_catalog(dev);
		if (!c || met >= c->n)
			return PAPI_ENOEVNT;
		/* the default variant is the event itself: the same name, which
		 * the core's table maps back to the event's own token, so the
		 * walk started again there and never ended (issue 38.1) */
		var++;
		if (var == tly_cu_default_variant(&c->m[met]))
			var++;
		if (var > c->m[met].nsub || (unsigned)var > TLY_CU_VAR_MAX)
			return PAPI_ENOEVNT;
		*tok = tok_make(dev, met, var);
		return PAPI_OK;
	}
	if (modifier == PAPI_ENUM_EVENTS)
		met++;
	else if (modifier != PAPI_ENUM_FIRST)
		return PAPI_EINVAL;
	for (; dev < tly_cu_ndevices(); dev++, met = 0) {
		c = tly_cu_device(dev)->profiling_ok ? tly_cu_device_catalog(dev) : NULL;
		if (c && met < c->n) {
			*tok = tok_make(dev, met, 0);
			return PAPI_OK;
		}
	}
	return PAPI_ENOEVNT;
}

static int cu_ntv_name(uint64_t tok, char *buf, size_t len)
{
	int dev, met, var;
	const struct tly_cu_catalog *c;
	char full[TALLY_GPU_NAME_LEN];

	tok_split(tok, &dev, &met, &var);
	c = tly_cu_device_catalog(dev);
	if (!c || met >= c->n)
		return tly_err_set(PAPI_ENOEVNT, "cuda: no event for token %llx", (unsigned long long)tok);
	tly_cu_full_name(c, met, var ? var : tly_cu_default_variant(&c->m[met]), full, sizeof full);
	snprintf(buf, len, "cuda:::%s:device=%d", full, dev);
	return PAPI_OK;
}

/* "metric[:device=N]" -> device and metric. */
static int parse_name(const char *name, int *dev, char *metric, size_t len)
{
	const char *q = strstr(name, ":device=");
	char *end = NULL;

	*dev = 0;
	if (strncmp(name, "cuda:::", 7) == 0)
		name += 7;
	if (q) {
		*dev = (int)strtol(q + 8, &end, 10);
		if (end == q + 8 || *end)
			return tly_err_set(PAPI_ENOEVNT, "cuda: bad device qualifier in '%s'", name);
	}
	snprintf(metric, len, "%.*s", (int)(q ? (size_t)(q - name) : strlen(name)), name);
	return PAPI_OK;
}

static int cu_ntv_lookup(const char *name, uint64_t *tok, char *canon, size_t len)
{
	char metric[TALLY_GPU_NAME_LEN];
	const struct tly_cu_catalog *c;
	int dev, met, var, rc = parse_name(name, &dev, metric, sizeof metric);

	if (rc != PAPI_OK)
		return rc;
	if (dev < 0 || dev >= tly_cu_ndevices())
		return tly_err_set(PAPI_ENOEVNT, "cuda: no GPU device %d for '%s'", dev, name);
	c = tly_cu_device_catalog(dev);
	if (!c)
		return tly_err_last_code() ? tly_err_last_code() : PAPI_ENOEVNT;
	if (tly_cu_catalog_find(c, metric, &met, &var) != 0)
		return tly_err_set(PAPI_ENOEVNT, "cuda: '%s' is not a metric of %s (base metric plus a "
				   "rollup such as .sum; see tally-gpu-avail)", metric, c->chip);
	*tok = tok_make(dev, met, var);
	snprintf(canon, len, "cuda:::%s:device=%d", metric, dev);
	return PAPI_OK;
}

static int cu_ntv_describe(uint64_t tok, const char *name, PAPI_event_info_t *info)
{
	int dev, met, var;
	const struct tly_cu_catalog *c;
	const struct tly_cu_metric *m;
	static const char *const types[] = { "counter", "ratio", "throughput" };

	tok_split(tok, &dev, &met, &var);
	c = tly_cu_device_catalog(dev);
	if (!c || met >= c->n)
		return PAPI_ENOEVNT;
	m = &c->m[met];
	snprintf(info->symbol, sizeof info->symbol, "%s", name);
	snprintf(info->short_descr, sizeof info->short_descr, "%s", m->desc);
	snprintf(info->long_descr, sizeof info->long_descr, "%s [%s; unit: %s; hardware unit: %s; GPU %d %s]",
		 m->desc, types[m->type % 3], m->unit[0] ? m->unit : "none", m->hw, dev, c->chip);
	snprintf(info->units, sizeof info->units, "%s", m->unit);
	info->data_type = m->type == CUPTI_METRIC_TYPE_COUNTER ? PAPI_DATATYPE_UINT64 : PAPI_DATATYPE_FP64;
	info->timescope = m->type == CUPTI_METRIC_TYPE_COUNTER ? PAPI_TIMESCOPE_SINCE_START : PAPI_TIMESCOPE_SINCE_LAST;
	return PAPI_OK;
}

/* ---- control state -------------------------------------------------------------------- */

static int cu_ctl_init(void *ctl, const struct tly_ctl_opts *opts)
{
	struct cu_ctl *c = ctl;

	(void)opts;
	c->s = calloc(1, sizeof *c->s);
	return c->s ? PAPI_OK : tly_err_set(PAPI_ENOMEM, "cuda: event set state");
}

static void cu_ctl_cleanup(void *ctl)
{
	struct cu_ctl *c = ctl;

	if (!c->s)
		return;
	for (int d = 0; d < TLY_CU_MAX_DEV; d++)
		if (c->s->coll[d]) {
			tly_cu_coll_close(c->s->coll[d], NULL, NULL);
			free(c->s->coll[d]);
		}
	free(c->s);
	c->s = NULL;
}

static int replay_wanted(void)
{
	char mode[8];

	tly_setting_pick(TLY_SET_cuda_replay, mode, sizeof mode);
	return !strcmp(mode, "kernel") || tly_cu_any_replay();
}

/* The metrics of one device, and how many passes they need. */
static int check_device_passes(const struct cu_set *s, int dev)
{
	const char *names[TLY_CU_MAX_EV];
	size_t passes;
	int k = 0;

	for (int i = 0; i < s->n; i++)
		if (s->ev[i].dev == dev)
			names[k++] = s->ev[i].metric;
	if (k == 0)
		return PAPI_OK;
	passes = tly_cu_config_passes(tly_cu_device(dev)->chip, tly_cu_device_avail_any(dev), names, k);
	if (passes == 0)
		return tly_err_last_code() ? tly_err_last_code() : PAPI_ECMP;
	if (passes > 1 && !replay_wanted())
		return tly_err_set(PAPI_EMULPASS, "cuda: these %d metrics of GPU %d need %zu passes; a PAPI event "
				   "set collects one pass unless kernel replay is on (TALLY_CUDA_REPLAY=kernel)",
				   k, dev, passes);
	return PAPI_OK;
}

static int cu_ctl_update(void *ctl, const char *const *names, int n)
{
	struct cu_set *s = ((struct cu_ctl *)ctl)->s;
	int rc = PAPI_OK;

	if (n > TLY_CU_MAX_EV)
		return tly_err_set(PAPI_ECOUNT, "cuda: at most %d GPU events per event set", TLY_CU_MAX_EV);
	s->n = 0;
	for (int i = 0; i < n && rc == PAPI_OK; i++) {
		struct cu_ev *e = &s->ev[s->n];
		int met, var;

		memset(e, 0, sizeof *e);
		rc = parse_name(names[i], &e->dev, e->metric, sizeof e->metric);
		if (rc == PAPI_OK && tly_cu_catalog_find(tly_cu_device_catalog(e->dev), e->metric, &met, &var) != 0)
			rc = tly_err_set(PAPI_ENOEVNT, "cuda: unknown metric '%s'", e->metric);
		if (rc == PAPI_OK)
			e->is_counter = tly_cu_device_catalog(e->dev)->m[met].type == CUPTI_METRIC_TYPE_COUNTER;
		s->n++;
	}
	for (int d = 0; d < tly_cu_ndevices() && rc == PAPI_OK; d++)
		rc = check_device_passes(s, d);
	if (rc != PAPI_OK)
		s->n = 0;
	return rc;
}

/* One range of one device: counters add up, ratios keep the latest. */
static void accumulate(void *ud, size_t idx, const char *name, const double *vals)
{
	struct acc_ctx *a = ud;
	int k = 0;

	(void)idx;
	(void)name;
	for (int i = 0; i < a->s->n; i++) {
		struct cu_ev *e = &a->s->ev[i];

		if (e->dev != a->dev)
			continue;
		e->acc = e->is_counter ? e->acc + vals[k] : vals[k];
		k++;
	}
}

static int harvest_all(struct cu_set *s, int restart)
{
	int rc = PAPI_OK;

	for (int d = 0; d < TLY_CU_MAX_DEV; d++) {
		struct acc_ctx a = { s, d };
		int r;

		if (!s->coll[d])
			continue;
		r = restart ? tly_cu_coll_harvest(s->coll[d], 1, accumulate, &a)
			    : tly_cu_coll_close(s->coll[d], accumulate, &a);
		if (!restart) {
			free(s->coll[d]);
			s->coll[d] = NULL;
		}
		rc = rc == PAPI_OK ? r : rc;
	}
	return rc;
}

static int cu_ctl_start(void *ctl)
{
	struct cu_set *s = ((struct cu_ctl *)ctl)->s;
	int rc = PAPI_OK, replay = replay_wanted();

	for (int i = 0; i < s->n; i++)
		s->ev[i].acc = 0;
	for (int d = 0; d < tly_cu_ndevices() && rc == PAPI_OK; d++) {
		const char *names[TLY_CU_MAX_EV];
		CUcontext ctx;
		int k = 0;

		for (int i = 0; i < s->n; i++)
			if (s->ev[i].dev == d)
				names[k++] = s->ev[i].metric;
		if (k == 0)
			continue;
		s->coll[d] = calloc(1, sizeof *s->coll[d]);
		rc = s->coll[d] ? tly_cu_ctx_for_device(d, &ctx) : PAPI_ENOMEM;
		if (rc == PAPI_OK)
			rc = tly_cu_coll_open(s->coll[d], ctx, d, names, k, replay, replay);
		s->full[d] = (struct acc_ctx){ s, d };
		if (rc == PAPI_OK)   /* kernel replay: a range per kernel, a full image summed at a launch */
			tly_cu_coll_on_full(s->coll[d], accumulate, &s->full[d]);
		if (rc != PAPI_OK) {
			free(s->coll[d]);
			s->coll[d] = NULL;
		}
	}
	s->running = rc == PAPI_OK;
	if (rc != PAPI_OK)
		harvest_all(s, 0);
	return rc;
}

static int cu_ctl_stop(void *ctl)
{
	struct cu_set *s = ((struct cu_ctl *)ctl)->s;
	int rc = s->running ? harvest_all(s, 0) : PAPI_OK;

	s->running = 0;
	return rc;
}

static int cu_ctl_read(void *ctl, long long *vals)
{
	struct cu_set *s = ((struct cu_ctl *)ctl)->s;
	int rc = s->running ? harvest_all(s, 1) : PAPI_OK;

	for (int i = 0; i < s->n; i++) {
		if (s->ev[i].is_counter)
			vals[i] = llround(s->ev[i].acc);
		else
			memcpy(&vals[i], &s->ev[i].acc, sizeof vals[i]);
	}
	return rc;
}

static int cu_ctl_reset(void *ctl)
{
	struct cu_set *s = ((struct cu_ctl *)ctl)->s;
	int rc = s->running ? harvest_all(s, 1) : PAPI_OK;

	for (int i = 0; i < s->n; i++)
		s->ev[i].acc = 0;
	return rc;
}

static int cu_ctl_set_opts(void *ctl, const struct tly_ctl_opts *opts)
{
	(void)ctl;
	(void)opts;
	return PAPI_OK;
}

const struct tly_component tly_cmp_cuda = {
	.name = "cuda",
	.short_name = "cuda",
	.description = "NVIDIA GPU metrics through CUPTI (Profiler Host + Range Profiler)",
	.version = "1.0",
	.ctl_size = sizeof(struct cu_ctl),
	.deferred_init = 1,   /* cuInit, cuptiProfilerInitialize, the metric catalog: at first use */
	.init = cu_init,
	.shutdown = cu_shutdown,
	.ntv_enum = cu_ntv_enum,
	.ntv_lookup = cu_ntv_lookup,
	.ntv_name = cu_ntv_name,
	.ntv_describe = cu_ntv_describe,
	.ctl_init = cu_ctl_init,
	.ctl_update = cu_ctl_update,
	.ctl_set_opts = cu_ctl_set_opts,
	.ctl_start = cu_ctl_start,
	.ctl_stop = cu_ctl_stop,
	.ctl_read = cu_ctl_read,
	.ctl_reset = cu_ctl_reset,
	.ctl_cleanup = cu_ctl_cleanup,
};
