/*
 * tally_gpu_activity.h - GPU activity records (kernels, memory copies,
 * memsets) with their start and end on a host clock, from CUPTI's
 * Activity API (src/components/cuda/common/cuda_activity.c).  The event
 * trace's GPU streams are made of them (docs/trace.md).
 */
#ifndef TALLY_GPU_ACTIVITY_H
#define TALLY_GPU_ACTIVITY_H

#include <stddef.h>
#include <stdint.h>

/* PAPI_EXPORT as papi.h defines it; the PAPI_* codes below are papi.h's
 * (not included: the record type is used without the library's build). */
#ifndef PAPI_EXPORT
#if defined(__GNUC__)
#define PAPI_EXPORT __attribute__((visibility("default")))
#else
#define PAPI_EXPORT
#endif
#endif

#define TALLY_GPU_ACT_KERNEL 1
#define TALLY_GPU_ACT_MEMCPY 2
#define TALLY_GPU_ACT_MEMSET 3

typedef struct tally_gpu_activity {
	int kind;                /* TALLY_GPU_ACT_* */
	uint32_t device;         /* CUDA device ordinal */
	uint32_t context;        /* CUPTI context id */
	uint32_t stream;         /* CUPTI stream id */
	uint32_t correlation_id; /* the launch's (tally_gpu_launch_t.correlation_id) */
	uint64_t start, end;     /* ns on the clock given to tally_gpu_activity_start */
	uint64_t bytes;          /* copies and memsets */
	const char *name;        /* kernel: demangled name; "memcpy HtoD", ..., "memset"; valid in the call */
} tally_gpu_activity_t;

/* Called with records as CUPTI hands them over (in CUPTI's thread, or in
 * the one calling tally_gpu_activity_flush), with the records CUPTI
 * dropped since the last call.  Records are not sorted. */
typedef void (*tally_gpu_activity_fn)(const tally_gpu_activity_t *recs, size_t n, uint64_t dropped, void *ud);

/* Start recording kernels, copies and memsets of every context.  `clock`
 * (ns, monotonic; NULL: CLOCK_MONOTONIC) is the clock the records' times
 * are given on: CUPTI takes it through cuptiActivityRegisterTimestampCallback
 * when the libcupti has it (*how = "callback"), else each record's time
 * is mapped by a (cuptiGetTimestamp, clock) pair read at the start and at
 * each buffer (*how = "pairs").  PAPI_ENOSUPP without CUPTI's Activity API,
 * PAPI_EISRUN when started already, PAPI_EINVAL for a NULL fn. */
PAPI_EXPORT int tally_gpu_activity_start(tally_gpu_activity_fn fn, void *ud, uint64_t (*clock)(void),
					 const char **how);
/* Hand over every record CUPTI holds (cuptiActivityFlushAll, forced).
 * PAPI_ENOTRUN when not started. */
/* Before tally_gpu_activity_start: kernel records of CUPTI's serialized
 * kind (on) instead of the concurrent one, for a run whose kernels are
 * serialized anyway (per-kernel GPU metrics: the concurrent kind then
 * adds a WaitNs kernel per launch that the profiler counts).  PAPI_EISRUN
 * while the Activity API runs. */
PAPI_EXPORT int tally_gpu_activity_serialize(int on);
PAPI_EXPORT int tally_gpu_activity_flush(void);
/* Flush, then stop recording; fn is not called afterwards. */
PAPI_EXPORT int tally_gpu_activity_stop(void);

#endif
