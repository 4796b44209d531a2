/*
 * trace_defs.c - closing the archive when the job file is written (the
 * writer module "trace", after the tables; collective over the tool's
 * communicator).  Each location gets the leaves of its open regions, its
 * mapping table (the events name a region by the thread's node index;
 * the mapping turns it into the job's region id, the `regions` table's)
 * and its clock offsets; rank 0 writes the global definitions from every
 * rank's location list: regions named as the profile names them, one
 * location group per rank, MPI_COMM_WORLD, and per location the events
 * dropped by TALLY_TRACE_MAX_EVENTS (property tally::dropped_events).
 */
#include "trace/trace.h"
#include "trace/trace_gpu.h"
#include "trace/trace_gpu_map.h"
#include "trace/trace_reqs.h"
#include "trace/trace_state.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output/out_module.h"
#include "regions/regions.h"

enum { L_ID = TLY_TL_ID, L_NEV = TLY_TL_NEV, L_DROP = TLY_TL_DROP, L_FIRST = TLY_TL_FIRST, L_LAST = TLY_TL_LAST,
       L_FIELDS = TLY_TL_FIELDS };

/* Every thread's location closed: leaves of what is open, mapping
 * table; out[] gets L_FIELDS values per location (malloc'd). */
static int close_locs(const struct tly_trace_state *s, struct tly_rt_proc *p, int32_t **gid, int64_t **out,
		      struct tly_trace_tally *a)
{
	int n = 0, k = 0;
	int ngpu;
	int64_t *v;
	uint64_t cupti_dropped = 0;

	tly_trace_gpu_stop();   /* what CUPTI holds written first: then the streams are known */
	ngpu = tly_trace_gpu_count();
	v = malloc((size_t)(p->nthreads + ngpu + 1) * L_FIELDS * sizeof *v);

	for (struct tly_rt_thread *t = p->threads; t && v; t = t->next, k++) {
		struct tly_trace_loc *l = NULL;
		uint64_t nev = 0;

		for (struct tly_trace_loc *x = s->locs; x; x = x->next)
			l = x->t == t ? x : l;
		tly_trace_check_thread(t, l, a);
		if (!l && t->depth && !(l = tly_trace_loc_adopt(t)))
			continue;
		if (!l)
			continue;
		tly_trace_loc_close(l, p->end_ns ? p->end_ns : tly_rt_now());
		tly_trace_check_closed(l, a);
		OTF2_EvtWriter_GetNumberOfEvents(l->w, &nev);
		OTF2_Archive_CloseEvtWriter(s->ar, l->w);
		l->w = NULL;
		v[n * L_FIELDS + L_ID] = (int64_t)l->id;
		v[n * L_FIELDS + L_NEV] = (int64_t)nev;
		v[n * L_FIELDS + L_DROP] = l->dropped;
		v[n * L_FIELDS + L_FIRST] = l->first_ts;
		v[n * L_FIELDS + L_LAST] = l->last_ts;
		v[n * L_FIELDS + TLY_TL_DEV] = -1;
		v[n * L_FIELDS + TLY_TL_STREAM] = -1;
		v[n * L_FIELDS + TLY_TL_CUPTI] = 0;
		n++;
		(void)gid;
	}
	if (v)
		n += tly_trace_gpu_close(v + (size_t)n * L_FIELDS, ngpu, &cupti_dropped);
	if (cupti_dropped)
		tly_rt_log(1, "trace: CUPTI dropped %llu GPU activity records (its buffers were full)",
			   (unsigned long long)cupti_dropped);
	*out = v;
	return v ? n : 0;
}

static void local_defs(const struct tly_trace_state *s, struct tly_rt_proc *p, int32_t **gid)
{
	int k = 0;

	for (struct tly_rt_thread *t = p->threads; t; t = t->next, k++) {
		struct tly_trace_loc *l = NULL;
		OTF2_DefWriter *dw;
		uint64_t *map;

		for (struct tly_trace_loc *x = s->locs; x; x = x->next)
			l = x->t == t ? x : l;
		if (!l || !(dw = OTF2_Archive_GetDefWriter(s->ar, l->id)))
			continue;
		map = malloc((size_t)(t->nnodes ? t->nnodes : 1) * sizeof *map);
		if (map && gid && gid[k]) {
			OTF2_IdMap *m;

			for (int32_t i = 0; i < t->nnodes; i++)
				map[i] = (uint64_t)gid[k][i];
			m = OTF2_IdMap_CreateFromUint64Array((uint64_t)t->nnodes, map, false);
			if (m) {
				OTF2_DefWriter_WriteMappingTable(dw, OTF2_MAPPING_REGION, m);
				OTF2_IdMap_Free(m);
			}
		}
		free(map);
		OTF2_DefWriter_WriteClockOffset(dw, (OTF2_TimeStamp)s->off0_at, s->off0, 0.0);
		OTF2_DefWriter_WriteClockOffset(dw, (OTF2_TimeStamp)s->off1_at, s->off1, 0.0);
		OTF2_Archive_CloseDefWriter(s->ar, dw);
	}
}

/* ---- rank 0: the global definitions ---- */
struct gdefs {
	OTF2_GlobalDefWriter *w;
	uint32_t nstr;
};

static OTF2_StringRef str(struct gdefs *g, const char *s)
{
	OTF2_GlobalDefWriter_WriteString(g->w, g->nstr, s);
	return g->nstr++;
}

static OTF2_StringRef str_cb(void *g, const char *s)
{
	return str(g, s);
}

/* A region key (output/unify.h: "<kind>\x1e<name>" per level, joined by
 * '\x1f'): its name (without a code address) and its readable path. */
static void write_region(struct gdefs *g, int id, const char *key)
{
	const char *leaf = strrchr(key, '\x1f'), *nm;
	char name[TLY_RT_NAME], path[2048];
	size_t at = 0;
	int kind;

	leaf = leaf ? leaf + 1 : key;
	kind = atoi(leaf);
	nm = strchr(leaf, '\x1e');
	nm = nm ? nm + 1 : leaf;
	snprintf(name, sizeof name, "%.*s", (int)strcspn(nm, (char[]){ TLY_RT_ADDR_SEP, 0 }), nm);
	for (const char *c = key; *c && at + 1 < sizeof path; c++) {
		if (*c == '\x1e')   /* drop the kind digits before it */
			while (at && path[at - 1] >= '0' && path[at - 1] <= '9')
				at--;
		else if (*c == TLY_RT_ADDR_SEP)
			while (c[1] && c[1] != '\x1f')
				c++;
		else if (*c == '\x1f' && at + 4 < sizeof path)
			at += (size_t)snprintf(path + at, sizeof path - at, " / ");   /* as the .h5's paths */
		else if (*c != '\x1f')
			path[at++] = *c;
	}
	path[at] = '\0';
	OTF2_GlobalDefWriter_WriteRegion(g->w, (OTF2_RegionRef)id, str(g, name), str(g, path), str(g, path),
					 kind == TLY_RK_MPI ? OTF2_REGION_ROLE_FUNCTION : OTF2_REGION_ROLE_CODE,
					 kind == TLY_RK_MPI ? OTF2_PARADIGM_MPI
					 : kind >= TLY_RK_OMP_PARALLEL && kind <= TLY_RK_OMP_TASK ? OTF2_PARADIGM_OPENMP
					 : OTF2_PARADIGM_USER,
					 OTF2_REGION_FLAG_NONE, str(g, ""), 0, 0);
}

/* The counters of TALLY_EVENTS as metric class 0 (trace_loc.c writes its
 * values at enters and leaves): cumulative counts since the thread's
 * start, as PAPI reads them. */
static void write_metrics(struct gdefs *g, const struct tly_rt_proc *p)
{
	OTF2_MetricMemberRef m[TLY_RT_MAX_EVENTS];

	if (p->nev <= 0)
		return;
	for (int i = 0; i < p->nev; i++) {
		m[i] = (OTF2_MetricMemberRef)i;
		OTF2_GlobalDefWriter_WriteMetricMember(g->w, m[i], str(g, p->ev[i].name), str(g, p->ev[i].descr),
						       OTF2_METRIC_TYPE_PAPI, OTF2_METRIC_ACCUMULATED_START,
						       OTF2_TYPE_INT64, OTF2_BASE_DECIMAL, 0,
						       str(g, p->ev[i].units[0] ? p->ev[i].units : "#"));
	}
	OTF2_GlobalDefWriter_WriteMetricClass(g->w, 0, (uint8_t)p->nev, m, OTF2_METRIC_SYNCHRONOUS_STRICT,
					      OTF2_RECORDER_KIND_CPU);
}

struct gpu_names {
	char **names;
	int n;
};

static void global_defs(const struct tly_trace_state *s, const struct tly_rt_proc *p, const struct tly_names *names,
			int64_t *v, int n, int nranks, int64_t *dropped, const struct gpu_names *gn)
{
	int ngpu = 0;
	struct gdefs g = { .w = OTF2_Archive_GetGlobalDefWriter(s->ar) };
	int64_t t0 = INT64_MAX, t1 = 0;
	struct timespec rt, mono;
	OTF2_StringRef prop;
	char nm[64];

	if (!g.w)
		return;
	for (int i = 0; i < n; i++) {
		t0 = v[i * L_FIELDS + L_FIRST] && v[i * L_FIELDS + L_FIRST] < t0 ? v[i * L_FIELDS + L_FIRST] : t0;
		t1 = v[i * L_FIELDS + L_LAST] > t1 ? v[i * L_FIELDS + L_LAST] : t1;
	}
	if (t0 == INT64_MAX)
		t0 = t1;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	OTF2_GlobalDefWriter_WriteClockProperties(g.w, 1000000000ULL, (uint64_t)t0, (uint64_t)(t1 - t0),
		(uint64_t)((rt.tv_sec - mono.tv_sec) * 1000000000LL + (rt.tv_nsec - mono.tv_nsec) + t0));
	if (s->comm)
		OTF2_GlobalDefWriter_WriteParadigm(g.w, OTF2_PARADIGM_MPI, str(&g, "MPI"), OTF2_PARADIGM_CLASS_PROCESS);
	OTF2_GlobalDefWriter_WriteSystemTreeNode(g.w, 0, str(&g, "job"), str(&g, "machine"),
						 OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	for (int r = 0; r < nranks; r++) {
		snprintf(nm, sizeof nm, "rank %d", r);
		OTF2_GlobalDefWriter_WriteLocationGroup(g.w, (OTF2_LocationGroupRef)r, str(&g, nm),
							OTF2_LOCATION_GROUP_TYPE_PROCESS, 0, OTF2_UNDEFINED_LOCATION_GROUP);
	}
	prop = str(&g, "tally::dropped_events");
	for (int i = 0; i < n; i++) {
		uint64_t id = (uint64_t)v[i * L_FIELDS + L_ID];
		OTF2_AttributeValue val = { .uint64 = (uint64_t)v[i * L_FIELDS + L_DROP] };

		if (v[i * L_FIELDS + TLY_TL_DEV] >= 0) {   /* a GPU stream: below */
			if (i != ngpu)
				memmove(v + (size_t)ngpu * L_FIELDS, v + (size_t)i * L_FIELDS, L_FIELDS * sizeof *v);
			ngpu++;
			*dropped += v[i * L_FIELDS + L_DROP];
			continue;
		}

		snprintf(nm, sizeof nm, "rank %d thread %d", (int)(id >> TLY_TRACE_TSHIFT),
			 (int)(id & ((1u << TLY_TRACE_TSHIFT) - 1)));
		OTF2_GlobalDefWriter_WriteLocation(g.w, id, str(&g, nm), OTF2_LOCATION_TYPE_CPU_THREAD,
						   (uint64_t)v[i * L_FIELDS + L_NEV], (OTF2_LocationGroupRef)(id >> TLY_TRACE_TSHIFT));
		OTF2_GlobalDefWriter_WriteLocationProperty(g.w, id, prop, OTF2_TYPE_UINT64, val);
		*dropped += v[i * L_FIELDS + L_DROP];
	}
	for (int i = 0; names && i < names->n; i++)
		write_region(&g, i, tly_names_key(names, i));
	tly_tgpu_global_regions(g.w, str_cb, &g, gn->names, gn->names ? gn->n : 0, (uint32_t)(names ? names->n : 0));
	tly_tgpu_global_locations(g.w, str_cb, &g, v, ngpu, (uint32_t)nranks, prop);
	write_metrics(&g, p);
	tly_tgpu_global_metric(g.w, str_cb, &g, p->nev);   /* the launch marks (trace_gpu.c) */
	if (s->comm) {
		uint64_t *m = malloc((size_t)nranks * sizeof *m);

		for (int r = 0; m && r < nranks; r++)
			m[r] = (uint64_t)r << TLY_TRACE_TSHIFT;
		OTF2_GlobalDefWriter_WriteGroup(g.w, 0, str(&g, ""), OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
						OTF2_GROUP_FLAG_NONE, m ? (uint32_t)nranks : 0, m);
		for (int r = 0; m && r < nranks; r++)
			m[r] = (uint64_t)r;
		OTF2_GlobalDefWriter_WriteGroup(g.w, 1, str(&g, ""), OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
						OTF2_GROUP_FLAG_NONE, m ? (uint32_t)nranks : 0, m);
		OTF2_GlobalDefWriter_WriteComm(g.w, 0, str(&g, "MPI_COMM_WORLD"), 1, OTF2_UNDEFINED_COMM,
					       OTF2_COMM_FLAG_NONE);
		free(m);
	}
	OTF2_Archive_CloseGlobalDefWriter(s->ar, g.w);
}

/* Every rank's location rows to rank 0 (*all, *nall); 0 or -1. */
static int gather(MPI_Comm *comm, const int64_t *v, int n, int rank, int nranks, int64_t **all, int *nall)
{
	int cnt = n * L_FIELDS, *cnts = NULL, *displs = NULL, tot = 0;

	*all = NULL;
	*nall = 0;
	if (!comm) {
		*all = malloc((size_t)(cnt ? cnt : 1) * sizeof **all);
		if (*all)
			memcpy(*all, v, (size_t)cnt * sizeof *v);
		*nall = n;
		return *all ? 0 : -1;
	}
	if (rank == 0) {
		cnts = malloc((size_t)nranks * sizeof *cnts);
		displs = malloc((size_t)nranks * sizeof *displs);
	}
	PMPI_Gather(&cnt, 1, MPI_INT, cnts, 1, MPI_INT, 0, *comm);
	for (int r = 0; rank == 0 && cnts && displs && r < nranks; r++) {
		displs[r] = tot;
		tot += cnts[r];
	}
	if (rank == 0)
		*all = malloc((size_t)(tot ? tot : 1) * sizeof **all);
	PMPI_Gatherv(v, cnt, MPI_INT64_T, *all, cnts, displs, MPI_INT64_T, 0, *comm);
	*nall = tot / L_FIELDS;
	free(cnts);
	free(displs);
	return 0;
}

/* The locations, once nothing writes to them (the hooks are gone). */
static void free_locs(struct tly_trace_state *s)
{
	pthread_mutex_lock(&s->lock);
	while (s->locs) {
		struct tly_trace_loc *l = s->locs;

		s->locs = l->next;
		free(l->fr);
		free(l->excl);
		free(l->seen);
		free(l->base);
		free(l);
	}
	free(s->base0);
	s->base0 = NULL;
	pthread_mutex_unlock(&s->lock);
	tly_trace_reqs_free();
}

/* The writer module's write (output/out_module.h): close the archive. */
static int close_archive(const struct tly_out_ctx *c, hid_t file, hid_t dxpl)
{
	struct tly_trace_state *s = tly_trace();
	int64_t *v = NULL, *all = NULL, dropped = 0;
	int n, nall = 0;
	struct gpu_names gn = { 0 };
	struct tly_trace_tally check = { 0 };

	(void)file;
	(void)dxpl;
	if (!__atomic_load_n(&s->open, __ATOMIC_ACQUIRE))
		return 0;
	/* closing is collective over the tool's communicator: a rank's
	 * partial file cannot; a job of one rank writes its file without the
	 * communicator (mpi_lifecycle.c) but is the whole communicator */
	if (c->partial || (s->comm && c->comm != s->comm && s->nranks > 1)) {
		char where[1400];

		tly_rt_log(1, "the trace in %s is left incomplete (a partial file is written)",
			   tly_trace_where(where, sizeof where));
		return 0;
	}
	__atomic_store_n(&s->open, 0, __ATOMIC_RELEASE);
	tly_region_follow(NULL);
	if (s->comm)
		tly_trace_mpi_stop();
	s->off1_at = tly_rt_now();
	s->off1 = tly_trace_clock_offset(s->comm);
	n = close_locs(s, c->p, c->gid, &v, &check);
	tly_trace_check_job(s->comm, &check);
	OTF2_Archive_CloseEvtFiles(s->ar);
	OTF2_Archive_OpenDefFiles(s->ar);
	local_defs(s, c->p, c->gid);
	gn.names = tly_trace_gpu_defs(s->comm, (uint32_t)(c->names ? c->names->n : 0),
				      (const int64_t[4]){ s->off0_at, s->off0, s->off1_at, s->off1 }, &gn.n);
	OTF2_Archive_CloseDefFiles(s->ar);
	gather(s->comm, v, n, s->rank, s->nranks, &all, &nall);
	if (s->rank == 0 && all)
		global_defs(s, c->p, c->names, all, nall, s->nranks, &dropped, &gn);
	tly_trace_gpu_free(gn.names, gn.n);
	tly_trace_publish(OTF2_Archive_Close(s->ar) == OTF2_SUCCESS);
	if (s->rank == 0 && dropped)
		tly_rt_log(1, "trace: %lld events dropped (beyond TALLY_TRACE_MAX_EVENTS=%lld per thread, records of "
			   "MPI requests completed on another thread or whose completion the trace did not see, "
			   "or memory short; per location in the archive: tally::dropped_events)", (long long)dropped, (long long)s->opt.max_events);
	s->ar = NULL;
	free_locs(s);
	free(v);
	free(all);
	return 0;
}

static void no_rows(const struct tly_out_ctx *c, struct tly_rows *r)
{
	(void)c;
	(void)r;
}

static const enum tly_table no_tables[] = { TLY_NTABLES };

static const struct tly_trace_h5_src h5_src = { tly_trace };

const struct tly_out_module tly_out_mod_trace = {
	.name = "trace",
	.tables = no_tables,
	.rows = no_rows,
	.write = close_archive,
	.h5_src = &h5_src,
};
