/*
 * trace_gpu.h - the trace's GPU streams, the runtime's side (trace_gpu.c:
 * CUPTI's Activity API started with the archive, the launch marks on the
 * CPU threads, the close; the mapping of records to OTF2 events is
 * trace_gpu_map.c).  Without CUDA these do nothing.
 */
#ifndef TALLY_TRACE_GPU_H
#define TALLY_TRACE_GPU_H

#include <stdint.h>

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

#endif /* TALLY_TRACE_GPU_H */
