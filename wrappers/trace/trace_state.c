/*
 * trace_state.c - the archive's state, one per process, in a file of its
 * own so that the files that read it (trace_loc.c, trace_mpi.c,
 * trace_gpu.c, trace_defs.c) do not call up into trace_archive.c, which
 * starts them.
 */
#include "trace/trace_state.h"

static struct tly_trace_state trace = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct tly_trace_state *tly_trace(void)
{
	return &trace;
}
