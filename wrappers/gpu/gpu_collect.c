/*
 * gpu_collect.c - the end of GPU collection, per bound context: harvest
 * every group's per-kernel values (one row per kernel in launch order, for
 * the group's metrics), put the metrics of all passes side by side, match
 * each row with the launch the hook recorded on that context and fold the
 * rows per device and kernel.
 * Application replay through counter data images: a run before the last
 * has no values (CUPTI evaluates the image in the last run), so its rows
 * are the hook's launches with NaN values; kernels are named by the hook
 * in every run of that mode, so the merge can compare launches.
 */
#include "gpu/gpu_collect.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tally_gpu.h"
#include "gpu/gpu_bind.h"
#include "gpu/gpu_marks.h"
#include "gpu/gpu_start.h"
#include "gpu/gpu_state.h"

#define CHUNK 4096   /* rows per read; a group's rows have no ceiling */

struct harvest {
	char **names;    /* whole names (malloc'ed), cap rows */
	double *m;       /* cap x n */
	int nk, cap;
};

/* Room for `rows` rows (0; -1 when out of memory). */
static int reserve(struct harvest *h, int rows, int n)
{
	int cap = h->cap ? h->cap : CHUNK;
	char **nm;
	double *m;

	if (rows <= h->cap)
		return 0;
	while (cap < rows)
		cap *= 2;
	nm = realloc(h->names, (size_t)cap * sizeof *nm);
	if (nm)
		h->names = nm;
	m = nm ? realloc(h->m, (size_t)cap * (size_t)n * sizeof *m) : NULL;
	if (!m)
		return -1;
	h->m = m;
	memset(&h->names[h->cap], 0, (size_t)(cap - h->cap) * sizeof *nm);
	memset(&h->m[(size_t)h->cap * (size_t)n], 0, (size_t)(cap - h->cap) * (size_t)n * sizeof *m);
	h->cap = cap;
	return 0;
}

/* Rows [off, off + nk) of one group read into h. */
static void put_rows(const struct tly_gpu_view *v, const tally_gpu_event_t *ids, const tally_gpu_event_t *ev, int ne, struct harvest *h,
		     int off, int nk, char **names, const double *vals)
{
	for (int r = 0; r < nk; r++) {   /* the first group read names the rows */
		if (!h->names[off + r])
			h->names[off + r] = names[r];
		else
			free(names[r]);
		names[r] = NULL;
	}
	for (int r = 0; r < nk; r++)
		for (int e = 0; e < ne; e++)
			for (int i = 0; i < v->n; i++)
				if (ids[i] == ev[e])
					h->m[(size_t)(off + r) * (size_t)v->n + (size_t)i] =
						vals[(size_t)r * (size_t)ne + (size_t)e];
}

/* Every row of one group, CHUNK at a time (a read returns the rows that
 * fit and keeps the others). */
static void read_group(const struct tly_gpu_view *v, const tally_gpu_event_t *ids, tally_gpu_group_t g, struct harvest *h,
		       char **names, double *vals)
{
	tally_gpu_event_t ev[TALLY_GPU_GROUP_MAX_EVENTS];
	size_t sz = sizeof ev, nsz = sizeof(int);
	int ne = 0, off = 0, nk;

	tally_gpu_group_get_attr(g, TALLY_GPU_GROUP_ATTR_NUM_EVENTS, &ne, &nsz);
	tally_gpu_group_get_attr(g, TALLY_GPU_GROUP_ATTR_EVENTS, ev, &sz);
	do {
		nk = CHUNK;
		if (tally_gpu_group_read_kernel_names(g, names, vals, &nk) != PAPI_OK)
			break;
		int got = nk < CHUNK ? nk : CHUNK;

		if (reserve(h, off + got, v->n) != 0) {
			tly_rt_log(1, "out of memory after %d kernels: the GPU values of the later ones are lost", off);
			for (int r = 0; r < got; r++)
				free(names[r]);
			break;
		}
		put_rows(v, ids, ev, ne, h, off, got, names, vals);
		off += got;
	} while (nk > CHUNK);
	h->nk = off > h->nk ? off : h->nk;
}

static int harvest_all(const struct tly_gpu_view *v, const struct tly_gpu_bind *b, struct harvest *h)
{
	char **names = calloc(CHUNK, sizeof *names);
	double *vals = calloc((size_t)CHUNK * TALLY_GPU_GROUP_MAX_EVENTS, sizeof *vals);
	int rc = names && vals && reserve(h, CHUNK, v->n) == 0 ? 0 : -1;

	if (rc == 0)
		for (int k = 0; k < b->sets->num_sets; k++)
			for (int g = 0; g < b->sets->sets[k].num_groups; g++)
				read_group(v, b->ids, b->sets->sets[k].groups[g], h, names, vals);
	free(names);
	free(vals);
	return rc;
}

static struct tly_gpu_kstat *find(struct tly_gpu_kstat *ks, int64_t *nks, const struct tly_rt_thread *t,
				  const struct tly_rt_thread *pt, int32_t node, int device, const char *name)
{
	for (int64_t i = 0; i < *nks; i++)
		if (ks[i].t == t && ks[i].pt == pt && ks[i].node == node && ks[i].device == device &&
		    !strcmp(ks[i].kernel, name))
			return &ks[i];
	ks += (*nks)++;
	memset(ks, 0, sizeof *ks);
	ks->t = t;
	ks->pt = pt;
	ks->node = node;
	ks->device = device;
	ks->kernel = strdup(name ? name : "?");
	for (int i = 0; i < TLY_GPU_MAX_METRICS; i++) {
		ks->min[i] = DBL_MAX;
		ks->max[i] = -DBL_MAX;
	}
	return ks;
}

static void fold_row(struct tly_gpu_kstat *k, const double *m, int n)
{
	k->launches++;
	for (int i = 0; i < n; i++) {
		k->total[i] += m[i];
		k->min[i] = m[i] < k->min[i] ? m[i] : k->min[i];
		k->max[i] = m[i] > k->max[i] ? m[i] : k->max[i];
	}
}

/* The launches the hook saw on b, without values, into ks. */
static void launches_only(const struct tly_gpu_view *v, const struct tly_gpu_bind *b, struct tly_gpu_kstat *ks,
			  int64_t *nks)
{
	double none[TLY_GPU_MAX_METRICS];
	int64_t first = *nks;

	for (int i = 0; i < v->n; i++)
		none[i] = NAN;
	for (int64_t r = 0; r < b->nl; r++)
		fold_row(find(ks, nks, b->l[r].t, b->l[r].pt, b->l[r].node, b->device, b->l[r].name), none, v->n);
	for (int64_t j = first; j < *nks; j++)
		for (int i = 0; i < v->n; i++)
			ks[j].min[i] = ks[j].max[i] = NAN;
}

/* Region granularity: a row per range ("r<k>"), folded per thread and
 * region as kernel TLY_GPU_REGION_ROW with the launches of the range;
 * ranges that launched nothing and counted nothing are left out.  The
 * marks count the launches of every context. */
static void fold_ranges(const struct tly_gpu_view *v, const struct tly_gpu_bind *b, const struct harvest *h,
			struct tly_gpu_kstat *ks, int64_t *nks)
{
	for (int r = 0; r < h->nk; r++) {
		const double *m = &h->m[(size_t)r * (size_t)v->n];
		const struct tly_rt_thread *t = NULL;
		int32_t node = 0;
		int64_t nl = 0;
		int any = 0;
		struct tly_gpu_kstat *k;

		for (int i = 0; i < v->n; i++)
			any |= m[i] != 0;
		if (tly_gpu_rt_mark_info(h->names[r] ? h->names[r] : "", &t, &node, &nl) != 0)
			t = NULL, node = 0, nl = 0;
		if (!nl && !any)
			continue;
		k = find(ks, nks, t, t, node, b->device, TLY_GPU_REGION_ROW);
		fold_row(k, m, v->n);
		k->launches += nl - 1;
	}
}

static void fold(const struct tly_gpu_view *v, const struct tly_gpu_bind *b, const struct harvest *h,
		 struct tly_gpu_kstat *ks, int64_t *nks)
{
	int warned = 0;

	if (h->nk != b->nl)
		tly_rt_log(1, "GPU %d: the profiler saw %d kernels, the launch hook %lld: kernels not seen by the "
			   "hook are attributed to no thread", b->device, h->nk, (long long)b->nl);
	for (int r = 0; r < h->nk; r++) {
		const struct tly_gpu_launch_rec *x = r < b->nl ? &b->l[r] : NULL;
		const char *seen = h->names[r] ? h->names[r] : "?";

		if (x && strcmp(x->name, seen) && !warned++)
			tly_rt_log(1, "GPU %d, kernel %d: the launch hook saw '%s', the profiler '%s'; attribution by "
				   "launch order may be wrong", b->device, r, x->name, seen);
		fold_row(find(ks, nks, x ? x->t : NULL, x ? x->pt : NULL, x ? x->node : 0, b->device,
			      x && v->image_pass >= 0 ? x->name : seen),
			 &h->m[(size_t)r * (size_t)v->n], v->n);
	}
}

static void free_harvest(struct harvest *h)
{
	for (int r = 0; h->names && r < h->nk; r++)
		free(h->names[r]);
	free(h->names);
	free(h->m);
	memset(h, 0, sizeof *h);
}

/* Binding b's rows harvested and folded into *ks (grown as needed). */
static void collect_one(const struct tly_gpu_view *v, const struct tly_gpu_bind *b, struct tly_gpu_kstat **ks,
			int64_t *nks, int64_t *cap)
{
	struct harvest h = { 0 };
	int only = v->image_pass >= 0 && !v->image_last;
	int64_t need;
	void *m;

	if (only)
		tally_gpu_group_sets_disable_all(b->sets);   /* saves this pass into the image */
	else if (harvest_all(v, b, &h) != 0) {
		free_harvest(&h);
		return;
	}
	need = *nks + (only ? b->nl : h.nk) + 1;
	if (need > *cap && (m = realloc(*ks, (size_t)need * sizeof **ks))) {
		*ks = m;
		*cap = need;
	}
	if (need <= *cap) {
		if (only)
			launches_only(v, b, *ks, nks);
		else if (v->ranges)
			fold_ranges(v, b, &h, *ks, nks);
		else
			fold(v, b, &h, *ks, nks);
	}
	free_harvest(&h);
}

/* The bindings (gpu_bind.c) and the launches recorded on them
 * (gpu_state.c). */
static void view(struct tly_gpu_view *v)
{
	*v = (struct tly_gpu_view){ 0 };
	v->b = tly_gpu_bind_all(&v->nb);
	tly_gpu_bind_modes(&v->replay, &v->ranges, &v->on);
	tly_gpu_state_view(v);
}

const struct tly_gpu_kstat *tly_gpu_rt_collect(int64_t *n, int *replay)
{
	struct tly_gpu_view v;
	int64_t cap = 0;

	tly_gpu_start_join();   /* a background start has ended */
	view(&v);
	*replay = v.replay;
	*n = *v.nks;
	if (*v.ks || !v.on)
		return *v.ks;
	*v.nks = 0;
	for (int i = 0; i < v.nb; i++)
		if (v.b[i].state == TLY_GPU_BIND_ON && v.b[i].sets)
			collect_one(&v, &v.b[i], v.ks, v.nks, &cap);
	if (!*v.ks)
		*v.ks = calloc(1, sizeof **v.ks);
	tly_gpu_bind_stop();
	tally_gpu_set_launch_hook(NULL, NULL);
	*n = *v.nks;
	return *v.ks;
}
