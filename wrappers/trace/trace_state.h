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
};
struct tly_trace_state *tly_trace(void);

#endif /* TALLY_TRACE_STATE_H */
