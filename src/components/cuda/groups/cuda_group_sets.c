/*
 * cuda_group_sets.c - group sets (the passes of an event list and the
 * groups of each pass), enabling a set or all sets at once (kernel
 * replay).
 *
 * Several groups enabled together share one range profiler session
 * (struct tly_cu_shared): the union of their metrics in one config image,
 * whose ranges are split back into the groups at each harvest.
 */
#include "cuda_groups_internal.h"

#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "services/err_detail.h"

struct tly_cu_shared {
	struct tly_cu_coll coll;
	int ng;
	tally_gpu_group_t *groups;
	int *offset;
	double *slice;
};

static void dispatch(void *ud, size_t idx, const char *name, const double *vals)
{
	struct tly_cu_shared *sh = ud;

	(void)idx;
	for (int i = 0; i < sh->ng; i++)
		tly_cu_group_add_range(sh->groups[i], name, vals + sh->offset[i]);
}

/* Harvest a shared collection into all its groups (restarting it): the
 * hook each of its groups calls (tly_cu_group_set_shared). */
static int shared_harvest(struct tly_cu_shared *sh)
{
	return tly_cu_coll_harvest(&sh->coll, 1, dispatch, sh);
}

static void shared_free(struct tly_cu_shared *sh)
{
	if (!sh)
		return;
	free(sh->groups);
	free(sh->offset);
	free(sh);
}

/* One session for groups[0..ng) of one context. */
static int shared_open(tally_gpu_group_t *groups, int ng, int kernel_mode, int replay, struct tly_cu_shared **out)
{
	struct tly_cu_shared *sh = calloc(1, sizeof *sh);
	const char **names = NULL;
	int total = 0, rc;

	for (int i = 0; i < ng; i++)
		total += tly_cu_group_nevents(groups[i]);
	if (sh) {
		sh->groups = calloc((size_t)ng, sizeof *sh->groups);
		sh->offset = calloc((size_t)ng, sizeof *sh->offset);
		names = calloc((size_t)total + 1, sizeof *names);
	}
	if (!sh || !sh->groups || !sh->offset || !names) {
		shared_free(sh);
		free(names);
		return tly_err_set(PAPI_ENOMEM, "GPU group set session");
	}
	for (int i = 0, k = 0; i < ng; i++) {
		if (tly_cu_group_enabled(groups[i])) {
			shared_free(sh);
			free(names);
			return tly_err_set(PAPI_EISRUN, "a group of the set is already enabled");
		}
		sh->groups[i] = groups[i];
		sh->offset[i] = k;
		for (int e = 0; e < tly_cu_group_nevents(groups[i]); e++)
			names[k++] = tly_cu_group_event_name(groups[i], e);
	}
	sh->ng = ng;
	rc = tly_cu_coll_open(&sh->coll, tly_cu_group_ctx(groups[0]), tly_cu_group_device(groups[0]),
			      names, total, kernel_mode, replay);
	free(names);
	if (rc != PAPI_OK) {
		shared_free(sh);
		return rc;
	}
	tly_cu_coll_on_full(&sh->coll, dispatch, sh);
	for (int i = 0; i < ng; i++)
		tly_cu_group_set_shared(groups[i], sh, sh->coll.kernel_mode || sh->coll.named, shared_harvest);
	*out = sh;
	return PAPI_OK;
}

static int shared_close(struct tly_cu_shared *sh)
{
	int rc = tly_cu_coll_close(&sh->coll, dispatch, sh);

	for (int i = 0; i < sh->ng; i++)
		tly_cu_group_set_shared(sh->groups[i], NULL, 0, NULL);
	shared_free(sh);
	return rc;
}

/* ---- group sets ------------------------------------------------------------------ */

/* Private part of a sets object: what enable_all/set_enable opened. */
struct sets_priv {
	tally_gpu_group_sets_t pub;
	CUcontext ctx;
	int ngroups;
	tally_gpu_group_t *all;
	struct tly_cu_shared *active;
};

static int build_groups(struct sets_priv *p, int dev, const char **names, const tally_gpu_event_t *ids,
			const int *group_of, int n)
{
	int rc = PAPI_OK;

	p->all = calloc((size_t)p->ngroups, sizeof *p->all);
	if (!p->all)
		return PAPI_ENOMEM;
	for (int g = 0; g < p->ngroups && rc == PAPI_OK; g++)
		rc = tly_cu_group_new(p->ctx, dev, &p->all[g]);
	for (int i = 0; i < n && rc == PAPI_OK; i++)
		rc = tally_gpu_group_add_event(p->all[group_of[i]], ids[i]);
	(void)names;
	return rc;
}

/* Set k holds the groups whose share of the passes starts at k; when a
 * group needs several passes it stays listed in the sets it spans. */
static int build_sets(struct sets_priv *p, int passes)
{
	int ns = passes > 0 ? passes : 1;

	p->pub.sets = calloc((size_t)ns, sizeof *p->pub.sets);
	if (!p->pub.sets)
		return PAPI_ENOMEM;
	p->pub.num_sets = ns;
	for (int k = 0; k < ns; k++) {
		tally_gpu_group_set_t *s = &p->pub.sets[k];

		s->groups = calloc((size_t)p->ngroups, sizeof *s->groups);
		if (!s->groups)
			return PAPI_ENOMEM;
		for (int g = 0; g < p->ngroups; g++) {
			int home = p->ngroups >= ns ? (int)((long)g * ns / p->ngroups) : (g < ns ? g : ns - 1);

			if (home == k || (p->ngroups < ns && g == p->ngroups - 1 && k >= g))
				s->groups[s->num_groups++] = p->all[g];
		}
	}
	return PAPI_OK;
}

int tally_gpu_group_sets_create(void *cu_context, const tally_gpu_event_t *ids, int n,
				tally_gpu_group_sets_t **sets)
{
	struct sets_priv *p;
	const char **names = NULL;
	int *group_of = NULL, dev, rc;
	size_t passes = 0;
	CUcontext ctx;

	if (!ids || n <= 0 || !sets)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_sets_create: ids, n > 0 and sets required");
	rc = tly_cu_ctx_resolve(cu_context, &ctx, &dev);
	if (rc != PAPI_OK)
		return rc;
	p = calloc(1, sizeof *p);
	names = calloc((size_t)n, sizeof *names);
	group_of = calloc((size_t)n, sizeof *group_of);
	rc = p && names && group_of ? PAPI_OK : PAPI_ENOMEM;
	for (int i = 0; i < n && rc == PAPI_OK; i++) {
		tally_gpu_event_info_t info = { .size = sizeof info };

		rc = tally_gpu_event_info(dev, ids[i], &info);
		names[i] = rc == PAPI_OK ? strdup(info.name) : NULL;
	}
	if (rc == PAPI_OK) {
		double t = tly_cu_time_start();

		p->ctx = ctx;
		rc = tly_cu_config_pack(tly_cu_device(dev)->chip, tly_cu_device_avail_any(dev), names, n, group_of,
					&p->ngroups, &passes);
		tly_cu_time_end("group sets: metrics packed into passes", t);
	}
	if (rc == PAPI_OK)
		rc = build_groups(p, dev, names, ids, group_of, n);
	if (rc == PAPI_OK)
		rc = build_sets(p, (int)passes);
	for (int i = 0; names && i < n; i++)
		free((char *)names[i]);
	free(names);
	free(group_of);
	if (p) {
		p->pub.size = sizeof p->pub;
		p->pub.host_passes = (int)passes;
	}
	if (rc != PAPI_OK) {
		if (p)
			tally_gpu_group_sets_destroy(&p->pub);
		return rc;
	}
	*sets = &p->pub;
	return PAPI_OK;
}

int tally_gpu_pack_passes(int device, const tally_gpu_event_t *ids, int n, int *group_of, int *ngroups,
			  int *host_passes)
{
	const char **names;
	size_t passes = 0;
	int rc = PAPI_OK;

	if (!ids || n <= 0 || !group_of || !ngroups || !host_passes)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_pack_passes: ids, n > 0, group_of, ngroups and "
				   "host_passes required");
	if (!tly_cu_device(device))
		return tly_err_set(PAPI_EINVAL, "tally_gpu_pack_passes: no GPU %d", device);
	names = calloc((size_t)n, sizeof *names);
	if (!names)
		return PAPI_ENOMEM;
	for (int i = 0; i < n && rc == PAPI_OK; i++) {
		tally_gpu_event_info_t info = { .size = sizeof info };

		rc = tally_gpu_event_info(device, ids[i], &info);
		if (rc == PAPI_OK && !(names[i] = strdup(info.name)))
			rc = PAPI_ENOMEM;
	}
	if (rc == PAPI_OK)
		rc = tly_cu_config_pack(tly_cu_device(device)->chip, tly_cu_device_avail_any(device), names, n,
					group_of, ngroups, &passes);
	*host_passes = (int)passes;
	for (int i = 0; i < n; i++)
		free((char *)names[i]);
	free(names);
	return rc;
}

int tally_gpu_group_sets_destroy(tally_gpu_group_sets_t *sets)
{
	struct sets_priv *p = (struct sets_priv *)sets;

	if (!sets)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_sets_destroy: NULL");
	if (p->active)
		return tly_err_set(PAPI_EISRUN, "group sets are enabled: disable them first");
	for (int g = 0; g < p->ngroups && p->all; g++)
		if (p->all[g] && tly_cu_group_enabled(p->all[g]))
			return tly_err_set(PAPI_EISRUN, "a group of the sets is enabled: disable it first");
	for (int g = 0; g < p->ngroups && p->all; g++)
		if (p->all[g])
			tally_gpu_group_destroy(p->all[g]);
	for (int k = 0; k < p->pub.num_sets && p->pub.sets; k++)
		free(p->pub.sets[k].groups);
	free(p->pub.sets);
	free(p->all);
	free(p);
	return PAPI_OK;
}

int tally_gpu_group_set_enable(tally_gpu_group_set_t *set)
{
	struct tly_cu_shared *sh;
	CUcontext ctx;

	if (!set || set->num_groups == 0)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_set_enable: empty set");
	ctx = tly_cu_group_ctx(set->groups[0]);
	return shared_open(set->groups, set->num_groups,
			   tly_cu_ctx_replay(ctx) ? TALLY_GPU_COLLECTION_KERNEL : tly_cu_ctx_mode(ctx),
			   tly_cu_ctx_replay(ctx), &sh);
}

int tally_gpu_group_set_disable(tally_gpu_group_set_t *set)
{
	if (!set || set->num_groups == 0)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_set_disable: empty set");
	for (int g = 0; g < set->num_groups; g++)
		if (tly_cu_group_enabled(set->groups[g])) {
			struct tly_cu_shared *sh = tly_cu_group_shared(set->groups[g]);

			return sh ? shared_close(sh) : tally_gpu_group_disable(set->groups[g]);
		}
	return PAPI_OK;
}

static int user_pass_on(CUcontext ctx)
{
	char image[512];

	return tly_cu_ctx_user_pass(ctx, image, sizeof image) >= 0;
}

int tally_gpu_group_sets_enable_all(tally_gpu_group_sets_t *sets)
{
	struct sets_priv *p = (struct sets_priv *)sets;
	int replay;

	if (!sets)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_sets_enable_all: NULL");
	if (p->active)
		return PAPI_OK;
	replay = tly_cu_ctx_replay(p->ctx);
	if (sets->host_passes > 1 && !replay && !user_pass_on(p->ctx))
		return tly_err_set(PAPI_EMULPASS, "%d passes need kernel replay (tally_gpu_kernel_replay_enable) "
				   "or one tally_gpu_group_set_enable per pass", sets->host_passes);
	/* per kernel, or per named range when that mode is set on the context */
	return shared_open(p->all, p->ngroups,
			   !replay && tly_cu_ctx_mode(p->ctx) == TALLY_GPU_COLLECTION_RANGES ? TALLY_GPU_COLLECTION_RANGES
											       : TALLY_GPU_COLLECTION_KERNEL,
			   replay, &p->active);
}

int tally_gpu_group_sets_disable_all(tally_gpu_group_sets_t *sets)
{
	struct sets_priv *p = (struct sets_priv *)sets;
	int rc;

	if (!sets)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_group_sets_disable_all: NULL");
	if (!p->active)
		return PAPI_OK;
	rc = shared_close(p->active);
	p->active = NULL;
	return rc;
}
