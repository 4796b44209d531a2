/*
 * trace_gpu_map.h - the trace's GPU streams (docs/trace.md): one OTF2
 * location per (device, stream) of a process, in an accelerator location
 * group per device under the rank's process group, filled from CUPTI's
 * activity records (tally_gpu_activity.h).
 *
 *   trace_gpu_map.c  records -> OTF2 events (no CUDA, no MPI: unit-tested
 *                    with synthetic records, testsuite/trace/trace_gpu_map.c)
 *   trace_gpu.c      the runtime part: CUPTI's Activity API started with
 *                    the archive (builds with CUDA), the launch marks on
 *                    the CPU threads, the close
 */
#ifndef TALLY_TRACE_GPU_MAP_H
#define TALLY_TRACE_GPU_MAP_H

#include <otf2/otf2.h>
#include <pthread.h>
#include <stdint.h>

#include "tally_gpu_activity.h"

/* GPU locations: rank << 16 | TLY_TGPU_LOC | k (k-th stream seen). */
#define TLY_TGPU_LOC 0x8000u
/* Attributes of a GPU region's enter; the launch mark's metric. */
#define TLY_TGPU_ATTR_CORR 0u    /* tally::correlation_id (uint32) */
#define TLY_TGPU_ATTR_BYTES 1u   /* tally::bytes (uint64; copies, memsets) */
/* The launch mark tally::cuda_launch (value: the correlation id) is
 * metric member `nev` of metric class (nev > 0) (class 0 holds the nev
 * counters of --trace-counters): ids stay dense, as OTF2's readers want. */
#define TLY_TGPU_METRIC_CLASS(nev) ((uint32_t)((nev) > 0))

struct tly_tgpu_rec {
	uint64_t start, end, bytes;
	uint32_t corr;
	int32_t region;   /* local: index into names */
};

struct tly_tgpu_stream {
	uint32_t device, context, stream;
	uint64_t id;
	OTF2_EvtWriter *w;
	struct tly_tgpu_rec *pend;
	int64_t npend, cap;
	int64_t kept, dropped, first_ts, last_ts;
	int64_t replayed;      /* runs of a replayed kernel after its first */
	uint32_t last_corr;    /* correlation id of the last record taken */
	int32_t corr_regions[4]; /* regions written with last_corr (kernel name, "memset", ...) */
	int ncorr_regions;
};

struct tly_tgpu {
	pthread_mutex_t lock;
	OTF2_Archive *ar;
	uint64_t loc_base;      /* rank << 16 | TLY_TGPU_LOC */
	int64_t max_events;     /* per location, 0: none */
	int closed;
	struct tly_tgpu_stream *s;
	int ns, caps;
	char **names;           /* region names, local ids */
	int32_t nnames, capnames;
	uint64_t cupti_dropped; /* records CUPTI dropped */
	OTF2_AttributeList *attrs;
};

/* Location rows as the close gathers them (trace_defs.c). */
enum { TLY_TL_ID, TLY_TL_NEV, TLY_TL_DROP, TLY_TL_FIRST, TLY_TL_LAST, TLY_TL_DEV, TLY_TL_STREAM,
       TLY_TL_CUPTI,   /* records CUPTI dropped in the process: on its first stream's row */
       TLY_TL_FIELDS };

void tly_tgpu_init(struct tly_tgpu *g, OTF2_Archive *ar, uint64_t loc_base, int64_t max_events);
/* Records in (any order within a window of 2048 per stream); thread-safe. */
void tly_tgpu_add(struct tly_tgpu *g, const tally_gpu_activity_t *r, size_t n, uint64_t dropped);
/* Write what is pending and close the event writers; then rows (v gets
 * TLY_TL_FIELDS per stream; returns how many). */
int tly_tgpu_close(struct tly_tgpu *g, int64_t *v, int max);
/* Each stream's mapping table (local name -> gid[local]) and clock offsets. */
void tly_tgpu_local_defs(struct tly_tgpu *g, const uint64_t *gid, const int64_t off[4]);
/* Rank 0's global definitions; str() writes a string definition and
 * returns its id.  The GPU regions (names[i] gets region id base + i)
 * and the two attributes: */
typedef OTF2_StringRef (*tly_tgpu_str_fn)(void *, const char *);
void tly_tgpu_global_regions(OTF2_GlobalDefWriter *w, tly_tgpu_str_fn str, void *sctx, char *const *names, int nnames,
			     uint32_t base);
/* The launch mark's metric member and class (after the counters'). */
void tly_tgpu_global_metric(OTF2_GlobalDefWriter *w, tly_tgpu_str_fn str, void *sctx, int nev);
/* An accelerator location group per (rank, device), ids from group0, and
 * the GPU locations (rows of every rank) with their dropped events and
 * tally::cupti_dropped_records. */
void tly_tgpu_global_locations(OTF2_GlobalDefWriter *w, tly_tgpu_str_fn str, void *sctx, const int64_t *rows,
			       int nrows, uint32_t group0, OTF2_StringRef dropped_prop);
void tly_tgpu_free(struct tly_tgpu *g);

#endif
