/*
 * cuda_event_group.c - tally_gpu_group_*: the life of one event group (create,
 * add/remove, enable/disable, read with reset-after-read, attributes).
 */
#include "cuda_groups_internal.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "services/err_detail.h"

struct tally_gpu_group {
	CUcontext ctx;
	int dev;
	int n;
	tally_gpu_event_t ids[TALLY_GPU_GROUP_MAX_EVENTS];
	char *names[TALLY_GPU_GROUP_MAX_EVENTS];
	int is_counter[TALLY_GPU_GROUP_MAX_EVENTS];
	double acc[TALLY_GPU_GROUP_MAX_EVENTS];
	int enabled;
	int kernel_mode;
	struct tly_cu_coll *own;
	struct tly_cu_shared *shared;
	int (*shared_harvest)(struct tly_cu_shared *sh);   /* group_sets' hook */
	/* The values: a launch on any thread may harvest a full image into
	 * them (cuda_range_full.c) while the owner reads, so acc, rows and
	 * lost are taken under vals_lock. */
	pthread_mutex_t vals_lock;
	struct tly_cu_krows rows;  /* kernels since the last read */
	size_t lost;               /* ... rows not kept (out of memory; in acc all the same) */
};

int tly_cu_group_nevents(tally_gpu_group_t g) { return g->n; }
const char *tly_cu_group_event_name(tally_gpu_group_t g, int i) { return g->names[i]; }
CUcontext tly_cu_group_ctx(tally_gpu_group_t g) { return g->ctx; }
int tly_cu_group_device(tally_gpu_group_t g) { return g->dev; }
int tly_cu_group_enabled(tally_gpu_group_t g) { return g->enabled; }
struct tly_cu_shared *tly_cu_group_shared(tally_gpu_group_t g) { return g->shared; }

int tly_cu_group_new(CUcontext ctx, int dev, tally_gpu_group_t *out)
{
	tally_gpu_group_t g = calloc(1, sizeof *g);

	if (!g)
		return tly_err_set(PAPI_ENOMEM, "GPU group");
	pthread_mutex_init(&g->vals_lock, NULL);
	g->ctx = ctx;
	g->dev = dev;
	*out = g;
	return PAPI_OK;
}

int tally_gpu_group_create(void *cu_context, tally_gpu_group_t *group)
{
	CUcontext ctx;
	int dev, rc;

	if (!group)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_create: group is NULL");
	rc = tly_cu_ctx_resolve(cu_context, &ctx, &dev);
	if (rc == PAPI_OK && !tly_cu_device_catalog(dev))
		rc = tly_err_last_code();
	if (rc != PAPI_OK)
		return rc;
	return tly_cu_group_new(ctx, dev, group);
}

int tally_gpu_group_destroy(tally_gpu_group_t g)
{
	if (!g)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_destroy: NULL group");
	if (g->enabled)
		return tly_err_set(PAPI_EISRUN, "cannot destroy an enabled GPU group: disable it first");
	for (int i = 0; i < g->n; i++)
		free(g->names[i]);
	tly_cu_krows_free(&g->rows);
	pthread_mutex_destroy(&g->vals_lock);
	free(g);
	return PAPI_OK;
}

/* Passes the group's metrics need together (a lone metric may need
 * several); 0 for an empty group or when the host API fails. */
static int group_passes(tally_gpu_group_t g)
{
	if (!g->n)
		return 0;
	return (int)tly_cu_config_passes(tly_cu_device(g->dev)->chip, tly_cu_device_avail_any(g->dev),
					 (const char *const *)g->names, g->n);
}

static int check_one_pass(tally_gpu_group_t g)
{
	size_t passes = tly_cu_config_passes(tly_cu_device(g->dev)->chip, tly_cu_device_avail_any(g->dev),
					     (const char *const *)g->names, g->n);

	if (passes == 0)
		return tly_err_last_code() ? tly_err_last_code() : PAPI_ECMP;
	if (passes > 1)
		return tly_err_set(PAPI_ECNFLCT, "GPU group: adding %s would need %zu passes; a group is "
				   "one pass (use group sets)", g->names[g->n - 1], passes);
	return PAPI_OK;
}

int tally_gpu_group_add_event(tally_gpu_group_t g, tally_gpu_event_t id)
{
	const struct tly_cu_catalog *c;
	char name[TALLY_GPU_NAME_LEN];
	int rc, m, v;

	if (!g)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_add_event: NULL group");
	if (g->enabled)
		return tly_err_set(PAPI_EISRUN, "cannot add an event to an enabled GPU group");
	c = tly_cu_device_catalog(g->dev);
	if (tly_cu_evid_split(c, id, &m, &v) != 0)
		return tly_err_set(PAPI_ENOEVNT, "GPU event id %llu is not valid", (unsigned long long)id);
	for (int i = 0; i < g->n; i++)
		if (g->ids[i] == id)
			return tly_err_set(PAPI_ECNFLCT, "event %s is already in the group", g->names[i]);
	if (g->n == TALLY_GPU_GROUP_MAX_EVENTS)
		return tly_err_set(PAPI_ECOUNT, "GPU group is full (%d events)", TALLY_GPU_GROUP_MAX_EVENTS);
	tly_cu_full_name(c, m, v, name, sizeof name);
	g->ids[g->n] = id;
	g->names[g->n] = strdup(name);
	g->is_counter[g->n] = c->m[m].type == CUPTI_METRIC_TYPE_COUNTER;
	g->n++;
	/* A lone metric is accepted even when it needs several passes (group
	 * sets put such a metric in a group of its own). */
	rc = g->n > 1 ? check_one_pass(g) : PAPI_OK;
	if (rc != PAPI_OK)
		free(g->names[--g->n]);
	return rc;
}

int tally_gpu_group_remove_event(tally_gpu_group_t g, tally_gpu_event_t id)
{
	if (!g)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_remove_event: NULL group");
	if (g->enabled)
		return tly_err_set(PAPI_EISRUN, "cannot remove an event from an enabled GPU group");
	for (int i = 0; i < g->n; i++) {
		if (g->ids[i] != id)
			continue;
		free(g->names[i]);
		memmove(&g->ids[i], &g->ids[i + 1], (size_t)(g->n - i - 1) * sizeof g->ids[0]);
		memmove(&g->names[i], &g->names[i + 1], (size_t)(g->n - i - 1) * sizeof g->names[0]);
		memmove(&g->is_counter[i], &g->is_counter[i + 1], (size_t)(g->n - i - 1) * sizeof g->is_counter[0]);
		g->n--;
		return PAPI_OK;
	}
	return tly_err_set(PAPI_ENOEVNT, "event %llu is not in the group", (unsigned long long)id);
}

int tally_gpu_group_remove_all(tally_gpu_group_t g)
{
	if (!g)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_remove_all: NULL group");
	if (g->enabled)
		return tly_err_set(PAPI_EISRUN, "cannot remove events from an enabled GPU group");
	for (int i = 0; i < g->n; i++)
		free(g->names[i]);
	g->n = 0;
	return PAPI_OK;
}

static void clear_values(tally_gpu_group_t g)
{
	pthread_mutex_lock(&g->vals_lock);
	memset(g->acc, 0, sizeof g->acc);
	tly_cu_krows_clear(&g->rows);
	g->lost = 0;
	pthread_mutex_unlock(&g->vals_lock);
}

void tly_cu_group_set_shared(tally_gpu_group_t g, struct tly_cu_shared *sh, int kernel_mode,
			     int (*harvest)(struct tly_cu_shared *sh))
{
	g->shared = sh;
	g->shared_harvest = harvest;
	g->enabled = sh != NULL;
	g->kernel_mode = kernel_mode;
	if (sh)
		clear_values(g);
}

void tly_cu_group_add_range(tally_gpu_group_t g, const char *name, const double *vals)
{
	pthread_mutex_lock(&g->vals_lock);
	for (int i = 0; i < g->n; i++)
		g->acc[i] = g->is_counter[i] ? g->acc[i] + vals[i] : vals[i];
	if (g->kernel_mode && tly_cu_krows_add(&g->rows, name, vals, g->n) != 0)
		g->lost++;
	pthread_mutex_unlock(&g->vals_lock);
}

static void group_range(void *ud, size_t idx, const char *name, const double *vals)
{
	(void)idx;
	tly_cu_group_add_range(ud, name, vals);
}

int tally_gpu_group_enable(tally_gpu_group_t g)
{
	int rc, replay, mode;

	if (!g)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_enable: NULL group");
	if (g->enabled)
		return PAPI_OK;
	if (g->n == 0)
		return tly_err_set(PAPI_EINVAL, "GPU group has no events");
	g->own = calloc(1, sizeof *g->own);
	if (!g->own)
		return PAPI_ENOMEM;
	replay = tly_cu_ctx_replay(g->ctx);
	mode = replay ? TALLY_GPU_COLLECTION_KERNEL : tly_cu_ctx_mode(g->ctx);
	g->kernel_mode = mode != TALLY_GPU_COLLECTION_CONTINUOUS;   /* rows per kernel or per range */
	rc = tly_cu_coll_open(g->own, g->ctx, g->dev, (const char *const *)g->names, g->n, mode, replay);
	if (rc == PAPI_OK)
		tly_cu_coll_on_full(g->own, group_range, g);
	if (rc != PAPI_OK) {
		free(g->own);
		g->own = NULL;
		return rc;
	}
	clear_values(g);
	g->enabled = 1;
	return PAPI_OK;
}

int tally_gpu_group_disable(tally_gpu_group_t g)
{
	int rc;

	if (!g)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_disable: NULL group");
	if (!g->enabled)
		return PAPI_OK;
	if (g->shared)
		return tly_err_set(PAPI_EISRUN, "group is enabled through its group sets: disable the sets");
	rc = tly_cu_coll_close(g->own, group_range, g);
	free(g->own);
	g->own = NULL;
	g->enabled = 0;
	return rc;
}

static int harvest(tally_gpu_group_t g)
{
	if (!g->enabled)
		return tly_err_set(PAPI_ENOTRUN, "GPU group is not enabled: nothing to read");
	if (g->shared)
		return g->shared_harvest(g->shared);
	return tly_cu_coll_harvest(g->own, 1, group_range, g);
}

int tally_gpu_group_read_event(tally_gpu_group_t g, tally_gpu_event_t id, double *value)
{
	int rc;

	if (!g || !value)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_read_event: NULL argument");
	rc = harvest(g);
	if (rc != PAPI_OK)
		return rc;
	for (int i = 0; i < g->n; i++)
		if (g->ids[i] == id) {
			pthread_mutex_lock(&g->vals_lock);
			*value = g->acc[i];
			g->acc[i] = 0;
			pthread_mutex_unlock(&g->vals_lock);
			return PAPI_OK;
		}
	return tly_err_set(PAPI_ENOEVNT, "event %llu is not in the group", (unsigned long long)id);
}

int tally_gpu_group_read_all(tally_gpu_group_t g, double *values, tally_gpu_event_t *ids, int *n)
{
	int rc;

	if (!g || !values || !n)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_read_all: NULL argument");
	if (*n < g->n)
		return tly_err_set(PAPI_ECOUNT, "group has %d events, room for %d", g->n, *n);
	rc = harvest(g);
	if (rc != PAPI_OK)
		return rc;
	pthread_mutex_lock(&g->vals_lock);
	for (int i = 0; i < g->n; i++) {
		values[i] = g->acc[i];
		if (ids)
			ids[i] = g->ids[i];
	}
	*n = g->n;
	memset(g->acc, 0, sizeof g->acc);
	pthread_mutex_unlock(&g->vals_lock);
	return PAPI_OK;
}

/* The rows since the last read: names cut to name_len (names), or whole
 * copies (dups), and values; *n in: room, out: rows pending (more than the
 * room: the rest stay for the next read). */
static int read_kernels(tally_gpu_group_t g, char *names, size_t name_len, char **dups, double *values,
			int *n)
{
	size_t pending;
	int rc;

	if (!g->kernel_mode)
		return tly_err_set(PAPI_EINVAL, "per-kernel values need kernel collection mode or kernel replay");
	if (*n < 0)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_read_kernels: negative capacity %d", *n);
	rc = harvest(g);
	if (rc != PAPI_OK)
		return rc;
	pthread_mutex_lock(&g->vals_lock);
	if (g->lost)   /* said, never silent: the totals (read_all) include them */
		fprintf(stderr, "tally: cuda: %zu kernel rows could not be kept (out of memory)\n", g->lost);
	pending = tly_cu_krows_pending(&g->rows);
	tly_cu_krows_take(&g->rows, (size_t)*n, g->n, names, name_len, dups, values);
	*n = pending > INT_MAX ? INT_MAX : (int)pending;
	g->lost = 0;
	memset(g->acc, 0, sizeof g->acc);
	pthread_mutex_unlock(&g->vals_lock);
	return PAPI_OK;
}

int tally_gpu_group_read_kernels(tally_gpu_group_t g, char *names, size_t name_len, double *values, int *n)
{
	if (!g || !n)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_read_kernels: NULL argument");
	return read_kernels(g, names, name_len, NULL, values, n);
}

int tally_gpu_group_read_kernel_names(tally_gpu_group_t g, char **names, double *values, int *n)
{
	if (!g || !n)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_read_kernel_names: NULL argument");
	return read_kernels(g, NULL, 0, names, values, n);
}

int tally_gpu_group_reset(tally_gpu_group_t g)
{
	int rc;

	if (!g)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_reset: NULL group");
	rc = g->enabled ? harvest(g) : PAPI_OK;
	clear_values(g);
	return rc;
}

static int put(void *value, size_t *size, const void *src, size_t len)
{
	if (*size < len)
		return tly_err_set(PAPI_EBUF, "attribute needs %zu bytes, got %zu", len, *size);
	memcpy(value, src, len);
	*size = len;
	return PAPI_OK;
}

int tally_gpu_group_get_attr(tally_gpu_group_t g, int attr, void *value, size_t *size)
{
	const struct tly_cu_catalog *c;
	tally_gpu_domain_info_t di = { .size = sizeof di };
	int v = 0;

	if (!g || !value || !size)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_get_attr: NULL argument");
	c = tly_cu_device_catalog(g->dev);
	switch (attr) {
	case TALLY_GPU_GROUP_ATTR_DOMAIN:
		v = g->n ? c->m[tly_cu_evid_metric(g->ids[0])].dom : -1;
		return put(value, size, &v, sizeof v);
	case TALLY_GPU_GROUP_ATTR_NUM_EVENTS:
		return put(value, size, &g->n, sizeof g->n);
	case TALLY_GPU_GROUP_ATTR_EVENTS:
		return put(value, size, g->ids, (size_t)g->n * sizeof g->ids[0]);
	case TALLY_GPU_GROUP_ATTR_INSTANCE_COUNT:
		if (g->n && tally_gpu_domain_info(g->dev, c->m[tly_cu_evid_metric(g->ids[0])].dom, &di) == PAPI_OK)
			v = di.instance_count;
		return put(value, size, &v, sizeof v);
	case TALLY_GPU_GROUP_ATTR_PASSES:
		v = group_passes(g);
		return put(value, size, &v, sizeof v);
	case TALLY_GPU_GROUP_ATTR_ENABLED:
		return put(value, size, &g->enabled, sizeof g->enabled);
	default:
		return tly_err_set(PAPI_EINVAL, "unknown GPU group attribute %d", attr);
	}
}
