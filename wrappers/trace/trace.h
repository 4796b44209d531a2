/*
 * trace.h - the event trace (TALLY_TRACE, docs/trace.md): one OTF2
 * archive per job, one location per measured thread.
 *
 *   trace_loc.c      a thread's location: enter/leave from the region
 *                    layer's follower hook (with the counter values read
 *                    there as an OTF2 Metric of class 0), filters and the
 *                    event cap
 *   trace_mpi.c      messages and collectives (the MPI layer's hooks)
 *   trace_archive.c  the archive: opened when the job starts (collective
 *                    over the tool's communicator), OTF2's buffers flushed
 *                    to its files as they fill; the runtime part
 *   trace_defs.c     closing at the file write: leaves of open regions,
 *                    local mapping tables, global definitions (the
 *                    writer's region ids), the writer module
 *   trace_clock.c    clock offsets to rank 0 at start and at the end
 */
#ifndef TALLY_TRACE_H
#define TALLY_TRACE_H

#include <otf2/otf2.h>
#include <stdint.h>

#include "runtime/rt.h"

/* A location's id: rank << TLY_TRACE_TSHIFT | thread index. */
#define TLY_TRACE_TSHIFT 16

struct tly_trace_opts {
	int64_t buffer;       /* bytes of OTF2 chunks per location before a flush */
	int64_t max_events;   /* per location, 0: no limit */
	int max_depth;        /* 0: no limit */
	int64_t min_ns;
	const char *exclude;  /* LIST of names (prefix*) */
	int counters;         /* counter values as metrics */
};

/* One open region of a location's trace. */
enum tly_trace_fstate { TLY_TF_WRITTEN, TLY_TF_PENDING, TLY_TF_DROPPED, TLY_TF_FILTERED };
struct tly_trace_frame {
	int32_t node;
	int32_t state;
	int64_t ts;
};

struct tly_trace_loc {
	struct tly_rt_thread *t;
	OTF2_EvtWriter *w;
	uint64_t id;
	int64_t kept, dropped, filtered, metrics;
	int64_t first_ts, last_ts, stop_ts;
	struct tly_trace_frame *fr;   /* open regions */
	int nfr, cap, npending;
	uint8_t *excl;                /* per node: 0 not yet known, 1 traced, 2 left out */
	int32_t nexcl;
	struct tly_trace_reqs *reqs;  /* pending MPI requests (trace_mpi.c) */
	uint64_t next_req;
	struct tly_trace_loc *next;
};

/* ---- trace_archive.c ---- */
struct tly_trace_state {
	OTF2_Archive *ar;
	struct tly_trace_opts opt;
	void *comm;                   /* the tool's MPI_Comm *, NULL: no MPI */
	int rank, nranks;
	int open;                     /* events may be written (atomic) */
	char dir[1100];               /* the archive's directory */
	int64_t off0_at, off0, off1_at, off1;   /* clock offsets to rank 0 */
	pthread_mutex_t lock;         /* locs */
	struct tly_trace_loc *locs;
};
struct tly_trace_state *tly_trace(void);

/* ---- trace_loc.c ---- */
/* The calling thread's location for t (made, with the enters of its open
 * regions, on first use); NULL when none can be. */
struct tly_trace_loc *tly_trace_loc_of(struct tly_rt_thread *t, int open_below);
/* Make the location of a thread that is no longer running (the close). */
struct tly_trace_loc *tly_trace_loc_adopt(struct tly_rt_thread *t);
/* Ready to write one event at ts: pending enters written first, the cap
 * applied.  1: write it (ts clamped so times never decrease), 0: dropped. */
int tly_trace_admit(struct tly_trace_loc *l, int64_t *ts);
/* The follower registered with the region layer. */
void tly_trace_follow(struct tly_rt_thread *t, int32_t node, int64_t ts, int enter, const long long *v);
/* Leaves of every open region at ts (the close). */
void tly_trace_loc_close(struct tly_trace_loc *l, int64_t ts);

/* ---- trace_mpi.c ---- */
void tly_trace_mpi_start(void);
void tly_trace_mpi_stop(void);

/* ---- trace_clock.c ---- */
/* Offset to add to this rank's clock to get rank 0's (collective over
 * comm; 0 without MPI). */
int64_t tly_trace_clock_offset(void *comm);

/* ---- trace_gpu.c (trace_gpu.h) ---- */
/* The GPU streams, after the archive opened (nothing without CUDA). */
void tly_trace_gpu_start(void);
/* CUPTI flushed and stopped (no stream is added after it). */
void tly_trace_gpu_stop(void);
/* The streams closed: their rows into v (TLY_TL_FIELDS each, at most
 * max), how many; *cupti_dropped. */
int tly_trace_gpu_close(int64_t *v, int max, uint64_t *cupti_dropped);
/* GPU streams so far (0 when not traced). */
int tly_trace_gpu_count(void);
/* Collective: every rank's GPU region names unified (ids from base), the
 * streams' local definitions written; the job's names (n in *nnames),
 * for rank 0's global definitions; free with tly_trace_gpu_free. */
char **tly_trace_gpu_defs(void *comm, uint32_t base, const int64_t off[4], int *nnames);
void tly_trace_gpu_free(char **names, int nnames);

/* trace_defs.c defines the writer module tly_out_mod_trace (output/out_module.h). */

#endif
