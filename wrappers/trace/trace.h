/*
 * trace.h - the event trace (TALLY_TRACE, docs/trace.md): one OTF2
 * archive per job, one location per measured thread.
 *
 *   trace_loc.c      a thread's location: enter/leave from the region
 *                    layer's follower hook (with the counter values read
 *                    there as an OTF2 Metric of class 0), filters and the
 *                    event cap
 *   trace_mpi.c      messages and collectives (the MPI layer's hooks)
 *   trace_reqs.c     the MPI requests followed, by handle, for the
 *                    whole process (trace_reqs.h): they grow as needed
 *   trace_archive.c  the archive: opened when the job starts (collective
 *                    over the tool's communicator), OTF2's buffers flushed
 *                    to its files as they fill; the runtime part (the top:
 *                    it starts the others, none calls it)
 *   trace_state.c    the archive's state, tly_trace() (trace_state.h),
 *                    read by all
 *   trace_defs.c     closing at the file write: leaves of open regions,
 *                    local mapping tables, global definitions (the
 *                    writer's region ids), the writer module
 *   trace_clock.c    clock offsets to rank 0 at start and at the end
 *   trace_check.c    the trace checks itself at the close: enters per
 *                    region against the profile's visits, enters against
 *                    leaves, messages sent against messages received
 *   trace_gpu.c      GPU streams (trace_gpu.h; the records' mapping to
 *                    OTF2 is trace_gpu_map.c, trace_gpu_map.h)
 */
#ifndef TALLY_TRACE_H
#define TALLY_TRACE_H

#include <otf2/otf2.h>
#include <stdint.h>

#include "runtime/rt.h"

/* A location's id: rank << TLY_TRACE_TSHIFT | thread index. */
#define TLY_TRACE_TSHIFT 16

/* The kinds of records TALLY_TRACE_KINDS picks (trace_archive.c parses
 * it): region enters and leaves by the region's kind (a thread's root is
 * always written), MPI's messages and collectives with its calls, GPU
 * streams. */
enum tly_trace_kind {
	TLY_TK_USER = 1, TLY_TK_MPI = 2, TLY_TK_OPENMP = 4, TLY_TK_NVTX = 8, TLY_TK_GPU = 16, TLY_TK_ALL = 31
};
#define TLY_TRACE_KIND_WORDS "user,mpi,openmp,nvtx,gpu"   /* bit k: word k */

struct tly_trace_opts {
	int64_t buffer;       /* bytes of OTF2 chunks per location before a flush */
	int64_t max_events;   /* per location, 0: no limit */
	int max_depth;        /* 0: no limit */
	int64_t min_ns;
	const char *exclude;  /* LIST of names (prefix*) */
	unsigned kinds;       /* TLY_TK_* traced */
	char kinds_text[64];  /* the same as words (the archive's property TALLY::TRACE_KINDS) */
	int counters;         /* counter values as metrics */
	int lose_thread;      /* test setting: this thread index's events are lost, uncounted (-1: none) */
};

/* One open region of a location's trace: written, held back (min_ns),
 * skipped (its kind is not traced: what is inside is), dropped (the cap)
 * or filtered (by name or depth, with what is inside). */
enum tly_trace_fstate { TLY_TF_WRITTEN, TLY_TF_PENDING, TLY_TF_SKIPPED, TLY_TF_DROPPED, TLY_TF_FILTERED };
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
	uint64_t next_req;            /* the last MPI request id of this location (trace_mpi.c) */
	/* the self-check (trace_check.c): region enters and leaves written,
	 * enters the follower gave per node, the profile's visits per node
	 * when the location was made (NULL: none before) */
	int64_t went, wleave;
	int64_t *seen, *base;
	int32_t nseen, nbase;
	struct tly_trace_loc *next;
};

/* ---- trace_archive.c ---- */
/* "<output dir>/<private directory>": where the archive is until moved. */
const char *tly_trace_where(char *buf, size_t len);
/* After OTF2_Archive_Close (closed: it succeeded), every rank: rank 0
 * moves the archive into place and says where it is. */
void tly_trace_publish(int closed);

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

/* ---- trace_check.c ---- */
#define TLY_TRACE_MSG_BUCKETS 256
/* What the check found on this rank (then, after tly_trace_check_job, in
 * the whole job). */
struct tly_trace_tally {
	int64_t missing;      /* enters the profile counts and the trace has not */
	int64_t unbalanced;   /* locations whose enters and leaves differ */
	int64_t unmatched;    /* messages without their other end */
	int64_t worst;        /* this rank's largest shortfall of one region */
	char first[256];      /* that region, named */
};
/* The visits of the thread opening the archive, before it opened. */
void tly_trace_check_open(void);
/* Counts one more seen enter of node (grows l->seen); -1: no memory. */
int tly_trace_check_seen(struct tly_trace_loc *l, int32_t node);
/* The base of a location made by its own thread (the profile's visits
 * so far; `leaving`: the node whose leave made it, already counted). */
void tly_trace_check_base(struct tly_trace_loc *l, int32_t leaving);
/* A message written: sign 1 a send from src to dst, -1 its receive. */
void tly_trace_check_msg(uint32_t src, uint32_t dst, uint32_t tag, uint64_t bytes, int sign);
/* Thread t (its location l, NULL: none) before its close. */
void tly_trace_check_thread(struct tly_rt_thread *t, struct tly_trace_loc *l, struct tly_trace_tally *a);
/* Enters against leaves once closed. */
void tly_trace_check_closed(const struct tly_trace_loc *l, struct tly_trace_tally *a);
/* The job's result (collective over comm, NULL: this process alone):
 * one line on rank 0 and tly_trace()->check, the file's trace_check. */
void tly_trace_check_job(void *comm, struct tly_trace_tally *a);

/* ---- trace_mpi.c ---- */
void tly_trace_mpi_start(void);
void tly_trace_mpi_stop(void);

/* ---- trace_clock.c ---- */
/* Offset to add to this rank's clock to get rank 0's (collective over
 * comm; 0 without MPI). */
int64_t tly_trace_clock_offset(void *comm);

/* trace_defs.c defines the writer module tly_out_mod_trace (output/out_module.h). */

#endif
