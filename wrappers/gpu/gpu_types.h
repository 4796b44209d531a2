/*
 * gpu_types.h - the types the files of wrappers/gpu share: a kernel's
 * statistics, a bound CUDA context and its recorded launches, the plan of
 * the metric list.  Types only (no source file): each file declares its
 * own functions in its own header, and calls point one way (docs/DESIGN.md,
 * "wrappers/gpu"): gpu_rt -> gpu_collect -> gpu_bind -> gpu_marks ->
 * gpu_state -> gpu_scope; gpu_start and gpu_share are leaves.
 */
#ifndef TALLY_GPU_TYPES_H
#define TALLY_GPU_TYPES_H

#include <stdint.h>

#include "runtime/rt.h"
#include "tally_gpu.h"

#define TLY_GPU_MAX_METRICS TLY_RT_MAX_EVENTS

/* Row name of region-granularity values in gpu_kernels. */
#define TLY_GPU_REGION_ROW "(region)"

/* Per rank, device, launching thread, region and kernel. */
struct tly_gpu_kstat {
	const struct tly_rt_thread *t;   /* launching thread; NULL when the launch was not seen */
	const struct tly_rt_thread *pt;  /* thread whose region tree holds node (t, or the process's) */
	int32_t node;                    /* region open at the launch (gpu_scope.c) */
	int device;
	const char *kernel;              /* whole demangled name (owned by the collector) */
	int64_t launches;
	double total[TLY_GPU_MAX_METRICS], min[TLY_GPU_MAX_METRICS], max[TLY_GPU_MAX_METRICS];
};

#define TLY_GPU_MAX_BINDS 16

struct tly_gpu_launch_rec {
	const struct tly_rt_thread *t;   /* launching thread */
	const struct tly_rt_thread *pt;  /* ... and the thread of node */
	int32_t node;
	const char *name;     /* whole name, interned */
};

enum { TLY_GPU_BIND_ON = 1, TLY_GPU_BIND_FILTERED = 0, TLY_GPU_BIND_SHARED = -1, TLY_GPU_BIND_FAILED = -2 };

/* One CUDA context of this process, bound at its first launch. */
struct tly_gpu_bind {
	uint32_t uid;                    /* CUPTI context uid */
	void *ctx;                       /* CUcontext */
	int device;                      /* visible index (CUDA ordinal) */
	int state;                       /* TLY_GPU_BIND_* */
	int owner_rank;                  /* SHARED: the rank that profiles the GPU (-1 unknown) */
	long owner_pid;
	char uuid[48], pci[32], name[256];
	tally_gpu_event_t ids[TLY_GPU_MAX_METRICS];
	struct tally_gpu_group_sets *sets;
	struct tly_gpu_launch_rec *l;    /* launches recorded on it (gpu_state.c's lock) */
	int64_t nl, cap;
	int64_t seen;                    /* launches seen, profiled or not */
};

/* The list's metric names ("cuda:::..." stripped), how many, the replay
 * flags of the schedule; made by gpu_rt.c before any binding. */
struct tly_gpu_plan {
	int n;
	char names[TLY_GPU_MAX_METRICS][128];
	int filter;                      /* :device=N of the first metric, else -1 (every GPU) */
	int pass;                        /* application replay: this run's pass, else -1 */
	int image;                       /* ... through counter data images */
	int host_passes, num_sets;
	int replay;                      /* kernel replay (several passes, no application replay) */
	int ranges;                      /* values per region (TALLY_CUDA_GRANULARITY=region) */
};
#endif /* TALLY_GPU_TYPES_H */
