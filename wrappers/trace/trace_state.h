/*
 * trace_state.h - the archive's state (trace_state.c), below every file
 * of the trace: trace_archive.c fills it when the job starts, the others
 * read it (open, options, locations).
 */
#ifndef TALLY_TRACE_STATE_H
#define TALLY_TRACE_STATE_H

#include <pthread.h>

#include "output/out_stage.h"
#include "trace/trace.h"

struct tly_trace_state {
	OTF2_Archive *ar;
	struct tly_trace_opts opt;
	void *comm;                   /* the tool's MPI_Comm *, NULL: no MPI */
	int rank, nranks;
	int open;                     /* events may be written (atomic) */
	char dir[1100];               /* the archive's directory, once in place */
	char otf2[1100];              /* the name OTF2 writes under (the private one) */
	struct tly_out_stage stage;   /* the private directory (output/out_stage.h) */
	int64_t off0_at, off0, off1_at, off1;   /* clock offsets to rank 0 */
	pthread_mutex_t lock;         /* locs */
	struct tly_trace_loc *locs;
	/* the self-check (trace_check.c): threads listed when the archive
	 * opened, the opening thread and its visits then, events of threads
	 * that could get no location, message sums by key (atomic) */
	int nthreads0;
	struct tly_rt_thread *opener;
	int64_t *base0;
	int32_t nbase0;
	int64_t unlocated;
	int64_t msg[TLY_TRACE_MSG_BUCKETS];
	char check[512];              /* "" or what is missing: the trace_check attribute */
	char id[48];                  /* the archive's id (tally.id), the job file's trace_id */
	int checked;                  /* check is this job's (the archive was closed) */
};
struct tly_trace_state *tly_trace(void);

/* The writer library's part (trace_h5.c) reaches the state through this
 * (the trace module's h5_src): the library does not link the preload. */
struct tly_trace_h5_src {
	struct tly_trace_state *(*state)(void);
};

#endif /* TALLY_TRACE_STATE_H */
