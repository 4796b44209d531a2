/*
 * trace_gpu_map.c - GPU activity records as OTF2 events: each (device,
 * context, stream) a location; a kernel, copy or memset an enter and a
 * leave of the region named by the kernel (or "memcpy HtoD", ...,
 * "memset") at its start and end, the enter carrying the launch's
 * correlation id (and the bytes of a copy).  CUPTI hands records over in
 * buffers, not in time order across them: each stream keeps a window of
 * records, sorted by start before they are written, so a location's
 * times never decrease (a record older than what is written is clamped
 * to it).  The cap (TALLY_TRACE_MAX_EVENTS) counts both events of a
 * record; what it leaves out is counted as dropped.
 */
#include "trace/trace_gpu_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 4096   /* pending records per stream before the older half is written */

void tly_tgpu_init(struct tly_tgpu *g, OTF2_Archive *ar, uint64_t loc_base, int64_t max_events)
{
	memset(g, 0, sizeof *g);
	pthread_mutex_init(&g->lock, NULL);
	g->ar = ar;
	g->loc_base = loc_base;
	g->max_events = max_events;
	g->attrs = OTF2_AttributeList_New();
}

static int32_t name_id(struct tly_tgpu *g, const char *name)
{
	char *c;

	for (int32_t i = g->nnames; i-- > 0;)
		if (!strcmp(g->names[i], name))
			return i;
	if (g->nnames == g->capnames) {
		int32_t cap = g->capnames ? 2 * g->capnames : 64;
		char **m = realloc(g->names, (size_t)cap * sizeof *m);

		if (!m)
			return -1;
		g->names = m;
		g->capnames = cap;
	}
	if (!(c = strdup(name)))
		return -1;
	g->names[g->nnames] = c;
	return g->nnames++;
}

static struct tly_tgpu_stream *stream_of(struct tly_tgpu *g, const tally_gpu_activity_t *r)
{
	struct tly_tgpu_stream *s;

	for (int i = 0; i < g->ns; i++)
		if (g->s[i].device == r->device && g->s[i].context == r->context && g->s[i].stream == r->stream)
			return &g->s[i];
	if (g->ns >= (int)TLY_TGPU_LOC)
		return NULL;
	if (g->ns == g->caps) {
		int cap = g->caps ? 2 * g->caps : 8;
		void *m = realloc(g->s, (size_t)cap * sizeof *g->s);

		if (!m)
			return NULL;
		g->s = m;
		g->caps = cap;
	}
	s = &g->s[g->ns];
	memset(s, 0, sizeof *s);
	s->device = r->device;
	s->context = r->context;
	s->stream = r->stream;
	s->id = g->loc_base + (uint64_t)g->ns;
	s->w = OTF2_Archive_GetEvtWriter(g->ar, s->id);
	if (!s->w)
		return NULL;
	g->ns++;
	return s;
}

static int by_start(const void *a, const void *b)
{
	const struct tly_tgpu_rec *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start ? 1 : x->end < y->end ? -1 : x->end > y->end;
}

static int seen_with_corr(const struct tly_tgpu_stream *s, int32_t region)
{
	for (int i = 0; i < s->ncorr_regions; i++)
		if (s->corr_regions[i] == region)
			return 1;
	return 0;
}

/* The oldest n pending records of s, sorted, into its location. */
static void write_out(struct tly_tgpu *g, struct tly_tgpu_stream *s, int64_t n)
{
	qsort(s->pend, (size_t)s->npend, sizeof *s->pend, by_start);
	for (int64_t i = 0; i < n; i++) {
		const struct tly_tgpu_rec *r = &s->pend[i];
		uint64_t t0 = r->start > (uint64_t)s->last_ts ? r->start : (uint64_t)s->last_ts;
		uint64_t t1 = r->end > t0 ? r->end : t0;

		/* a kernel replayed to collect GPU metrics runs once per pass
		 * with the launch's correlation id (ids are one per API call):
		 * the stream shows the launch once, its first run.  Only a run
		 * of the same region is a replay: the L2 flush queued in the
		 * launch's callback (TALLY_CUDA_CACHE=flush) carries the same
		 * id and comes first, and must not take the kernel's place. */
		if (r->corr && s->kept + s->dropped + s->replayed > 0 && r->corr == s->last_corr &&
		    seen_with_corr(s, r->region)) {
			s->replayed++;
			continue;
		}
		if (r->corr != s->last_corr)
			s->ncorr_regions = 0;
		s->last_corr = r->corr;
		if (s->ncorr_regions < (int)(sizeof s->corr_regions / sizeof *s->corr_regions))
			s->corr_regions[s->ncorr_regions++] = r->region;
		if (g->max_events && s->kept + 2 > g->max_events) {
			s->dropped += 2;
			continue;
		}
		OTF2_AttributeList_RemoveAllAttributes(g->attrs);
		OTF2_AttributeList_AddUint32(g->attrs, TLY_TGPU_ATTR_CORR, r->corr);
		if (r->bytes)
			OTF2_AttributeList_AddUint64(g->attrs, TLY_TGPU_ATTR_BYTES, r->bytes);
		OTF2_EvtWriter_Enter(s->w, g->attrs, t0, (OTF2_RegionRef)r->region);
		OTF2_EvtWriter_Leave(s->w, NULL, t1, (OTF2_RegionRef)r->region);
		if (!s->kept)
			s->first_ts = (int64_t)t0;
		s->kept += 2;
		s->last_ts = (int64_t)t1;
	}
	memmove(s->pend, s->pend + n, (size_t)(s->npend - n) * sizeof *s->pend);
	s->npend -= n;
}

void tly_tgpu_add(struct tly_tgpu *g, const tally_gpu_activity_t *r, size_t n, uint64_t dropped)
{
	pthread_mutex_lock(&g->lock);
	g->cupti_dropped += dropped;
	for (size_t i = 0; i < n && !g->closed; i++) {
		struct tly_tgpu_stream *s = stream_of(g, &r[i]);
		int32_t id = name_id(g, r[i].name ? r[i].name : "?");

		if (!s || id < 0)
			continue;
		if (s->npend == s->cap) {
			int64_t cap = s->cap ? 2 * s->cap : 256;
			void *m = realloc(s->pend, (size_t)cap * sizeof *s->pend);

			if (!m) {
				s->dropped += 2;
				continue;
			}
			s->pend = m;
			s->cap = cap;
		}
		s->pend[s->npend++] = (struct tly_tgpu_rec){ r[i].start, r[i].end, r[i].bytes, r[i].correlation_id, id };
		if (s->npend >= WINDOW)
			write_out(g, s, WINDOW / 2);
	}
	pthread_mutex_unlock(&g->lock);
}

int tly_tgpu_close(struct tly_tgpu *g, int64_t *v, int max)
{
	int n = 0;

	pthread_mutex_lock(&g->lock);
	g->closed = 1;
	for (int i = 0; i < g->ns; i++) {
		struct tly_tgpu_stream *s = &g->s[i];
		uint64_t nev = 0;

		write_out(g, s, s->npend);
		OTF2_EvtWriter_GetNumberOfEvents(s->w, &nev);
		OTF2_Archive_CloseEvtWriter(g->ar, s->w);
		s->w = NULL;
		if (n >= max)
			continue;
		int64_t *row = v + (size_t)n++ * TLY_TL_FIELDS;

		row[TLY_TL_ID] = (int64_t)s->id;
		row[TLY_TL_NEV] = (int64_t)nev;
		row[TLY_TL_DROP] = s->dropped;
		row[TLY_TL_FIRST] = s->first_ts;
		row[TLY_TL_LAST] = s->last_ts;
		row[TLY_TL_DEV] = s->device;
		row[TLY_TL_STREAM] = s->stream;
		row[TLY_TL_CUPTI] = i == 0 ? (int64_t)g->cupti_dropped : 0;
	}
	pthread_mutex_unlock(&g->lock);
	return n;
}

void tly_tgpu_local_defs(struct tly_tgpu *g, const uint64_t *gid, const int64_t off[4])
{
	for (int i = 0; i < g->ns; i++) {
		OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(g->ar, g->s[i].id);
		OTF2_IdMap *m;

		if (!dw)
			continue;
		m = gid && g->nnames ? OTF2_IdMap_CreateFromUint64Array((uint64_t)g->nnames, gid, false) : NULL;
		if (m) {
			OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_REGION, m);
			OTF2_IdMap_Free(m);
		}
		OTF2_DefWriter_WriteClockOffset(dw, (OTF2_TimeStamp)off[0], off[1], 0.0);
		OTF2_DefWriter_WriteClockOffset(dw, (OTF2_TimeStamp)off[2], off[3], 0.0);
		OTF2_Archive_CloseDefWriter(g->ar, dw);
	}
}

void tly_tgpu_global_regions(OTF2_GlobalDefWriter *w, tly_tgpu_str_fn str, void *sctx, char *const *names, int nnames,
			     uint32_t base)
{
	for (int i = 0; i < nnames; i++)
		OTF2_GlobalDefWriter_WriteRegion(w, base + (uint32_t)i, str(sctx, names[i]), str(sctx, names[i]),
						 str(sctx, ""), OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA,
						 OTF2_REGION_FLAG_NONE, str(sctx, ""), 0, 0);
	OTF2_GlobalDefWriter_WriteAttribute(w, TLY_TGPU_ATTR_CORR, str(sctx, "tally::correlation_id"),
					    str(sctx, "CUPTI correlation id of the launch"), OTF2_TYPE_UINT32);
	OTF2_GlobalDefWriter_WriteAttribute(w, TLY_TGPU_ATTR_BYTES, str(sctx, "tally::bytes"),
					    str(sctx, "bytes copied or set"), OTF2_TYPE_UINT64);
}

void tly_tgpu_global_metric(OTF2_GlobalDefWriter *w, tly_tgpu_str_fn str, void *sctx, int nev)
{
	OTF2_MetricMemberRef mm = (OTF2_MetricMemberRef)(nev > 0 ? nev : 0);

	OTF2_GlobalDefWriter_WriteMetricMember(w, mm, str(sctx, "tally::cuda_launch"),
					       str(sctx, "CUPTI correlation id of a kernel, copy or memset launched here"),
					       OTF2_METRIC_TYPE_OTHER, OTF2_METRIC_ABSOLUTE_POINT, OTF2_TYPE_UINT64,
					       OTF2_BASE_DECIMAL, 0, str(sctx, "id"));
	OTF2_GlobalDefWriter_WriteMetricClass(w, TLY_TGPU_METRIC_CLASS(nev), 1, &mm, OTF2_METRIC_ASYNCHRONOUS,
					      OTF2_RECORDER_KIND_CPU);
}

void tly_tgpu_global_locations(OTF2_GlobalDefWriter *w, tly_tgpu_str_fn str, void *sctx, const int64_t *rows,
			       int nrows, uint32_t group0, OTF2_StringRef dropped_prop)
{
	int64_t *seen = malloc((size_t)(nrows ? nrows : 1) * sizeof *seen);   /* rank << 32 | device per group */
	uint32_t ngroups = 0, grp;
	OTF2_StringRef cupti = nrows ? str(sctx, "tally::cupti_dropped_records") : 0;
	char nm[96];

	for (int i = 0; seen && i < nrows; i++) {
		const int64_t *r = rows + (size_t)i * TLY_TL_FIELDS;
		uint32_t rank = (uint32_t)((uint64_t)r[TLY_TL_ID] >> 16);
		int64_t key = (int64_t)rank << 32 | (r[TLY_TL_DEV] & 0xffffffff);
		OTF2_AttributeValue val = { .uint64 = (uint64_t)r[TLY_TL_DROP] };

		for (grp = 0; grp < ngroups && seen[grp] != key; grp++)
			;
		if (grp == ngroups) {
			seen[ngroups++] = key;
			snprintf(nm, sizeof nm, "rank %u GPU %d", rank, (int)r[TLY_TL_DEV]);
			OTF2_GlobalDefWriter_WriteLocationGroup(w, group0 + grp, str(sctx, nm),
								OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, 0,
								(OTF2_LocationGroupRef)rank);
		}
		snprintf(nm, sizeof nm, "rank %u GPU %d stream %u", rank, (int)r[TLY_TL_DEV], (unsigned)r[TLY_TL_STREAM]);
		OTF2_GlobalDefWriter_WriteLocation(w, (uint64_t)r[TLY_TL_ID], str(sctx, nm),
						   OTF2_LOCATION_TYPE_ACCELERATOR_STREAM, (uint64_t)r[TLY_TL_NEV],
						   group0 + grp);
		OTF2_GlobalDefWriter_WriteLocationProperty(w, (uint64_t)r[TLY_TL_ID], dropped_prop, OTF2_TYPE_UINT64, val);
		val.uint64 = (uint64_t)r[TLY_TL_CUPTI];
		OTF2_GlobalDefWriter_WriteLocationProperty(w, (uint64_t)r[TLY_TL_ID], cupti, OTF2_TYPE_UINT64, val);
	}
	free(seen);
}

void tly_tgpu_free(struct tly_tgpu *g)
{
	for (int i = 0; i < g->ns; i++)
		free(g->s[i].pend);
	free(g->s);
	for (int32_t i = 0; i < g->nnames; i++)
		free(g->names[i]);
	free(g->names);
	if (g->attrs)
		OTF2_AttributeList_Delete(g->attrs);
	pthread_mutex_destroy(&g->lock);
	memset(g, 0, sizeof *g);
}
