/*
 * gpu_rt.h - GPU metrics under the measurement runtime (docs/passes.md).
 *
 * cuda::: metrics named in TALLY_EVENTS are collected per kernel through
 * the cuda component's event-group model: the metric list's group sets
 * are the GPU pass schedule (recorded with the CPU one and checked across
 * ranks), a list needing two or more passes runs in kernel replay (every
 * kernel replayed once per pass inside one run), and the launch hook
 * ties each kernel to its rank, launching thread and current region.
 */
#ifndef TALLY_GPU_RT_H
#define TALLY_GPU_RT_H

#include <stdint.h>

#include "runtime/rt.h"
#include "tally_gpu.h"

#define TLY_GPU_MAX_METRICS TLY_RT_MAX_EVENTS

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

/* Set up collection of the GPU metrics of TALLY_EVENTS: the metric list,
 * its GPU pass schedule (recorded with the CPU one and checked across
 * ranks) and the launch hook.  No GPU is chosen here: each CUDA context is
 * bound at its first kernel launch (gpu_bind.c), on whatever device the
 * program chose by then.  Called at MPI_Init (comm_ptr: the tool's
 * MPI_Comm *) or at the start of a program without MPI; a failure is
 * logged and GPU data is left out. */
void tly_gpu_rt_start(void *comm_ptr);
/* gpu_share.c: claim the physical GPU `uuid` for this process (1), or
 * learn who holds it (0: *owner_rank, -1 when unknown, and *owner_pid). */
int tly_gpu_share_claim(const char *uuid, int *owner_rank, long *owner_pid);
/* Harvest the per-kernel values (once, at the end).  Returns the kernel
 * statistics (*n rows) or NULL; `replay` tells the replay mode. */
const struct tly_gpu_kstat *tly_gpu_rt_collect(int64_t *n, int *replay);

/* Region granularity (TALLY_CUDA_GRANULARITY=region): thread t entered or
 * left a region; the next launch ends the GPU range and starts one for
 * t's innermost region unless the open range is that region's
 * (gpu_marks.c).  Cheap when that granularity is off. */
void tly_gpu_rt_mark(const struct tly_rt_thread *t);
/* At a launch's entry, before the kernel is submitted: start the range of
 * the region wanted since the last launch, if any. */
void tly_gpu_rt_mark_launch(void);
/* Turn marks on (after the ranges-mode session is enabled). */
void tly_gpu_rt_marks_on(void);
/* The thread, region and launches of range `name` ("r<k>"); -1 when the
 * name is none of the marks. */
int tly_gpu_rt_mark_info(const char *name, const struct tly_rt_thread **t, int32_t *node, int64_t *launches);
/* gpu_start.c: run fn(arg) in a thread (0, or -1 when none could be
 * made); wait (from any other thread) until it is done, -1 after the
 * bounded wait; join it. */
int tly_gpu_start_background(void (*fn)(void *), void *arg);
int tly_gpu_start_wait(void);
void tly_gpu_start_join(void);

/* gpu_scope.c: TALLY_CUDA_SCOPE.  Start (read the setting); note a region
 * change of t; the thread and region a launch of t is attributed to (t's
 * own innermost region, else under 'process' the region open in the
 * process). */
void tly_gpu_scope_start(void);
void tly_gpu_scope_note(const struct tly_rt_thread *t);
void tly_gpu_scope_of(const struct tly_rt_thread *t, const struct tly_rt_thread **pt, int32_t *node);
/* 1 when t's launches count for another thread's region (process scope,
 * t at its root while a region is open elsewhere). */
int tly_gpu_scope_elsewhere(const struct tly_rt_thread *t);

/* The event trace's launch observer (wrappers/trace/trace_gpu.c): called
 * on the launching thread at each launch's enter with its CUPTI
 * correlation id; NULL removes it. */
void tly_gpu_rt_launch_observer(void (*fn)(uint32_t correlation_id));

/* Whether values are per region (no cache control there). */
int tly_gpu_rt_ranges(void);

/* Row name of region-granularity values in gpu_kernels. */
#define TLY_GPU_REGION_ROW "(region)"

/* ---- shared by gpu_rt.c, gpu_bind.c, gpu_collect.c and the rows ------- */
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
	struct tly_gpu_launch_rec *l;    /* launches recorded on it (gs lock) */
	int64_t nl, cap;
	int64_t seen;                    /* launches seen, profiled or not */
};

struct tly_gpu_view {
	int on, n, replay;
	int ranges;                      /* region granularity: rows are marks' ranges */
	int image_pass;                  /* application replay through images: this run's pass, else -1 */
	int image_last;                  /* ... and whether it is the last (the evaluated one) */
	int nb;                          /* bound contexts */
	struct tly_gpu_bind *b;
	int64_t nl;                      /* launches recorded on all contexts */
	struct tly_gpu_kstat **ks;       /* result, collected once */
	int64_t *nks;
};
void tly_gpu_rt_view(struct tly_gpu_view *v);

/* gpu_bind.c: the binding of a launch's context, bound now if it is new
 * (phase 0 of a launch); NULL when none can be kept. */
struct tly_gpu_bind *tly_gpu_bind_launch(const tally_gpu_launch_t *l);
/* Without the launch hook (another CUPTI tool holds the subscription):
 * bind the calling thread's current context, else device `device`'s
 * primary one, now. */
void tly_gpu_bind_now(int device);
/* The binding of context uid, or NULL (no new binding). */
struct tly_gpu_bind *tly_gpu_bind_find(uint32_t uid);
/* The list's metric names ("cuda:::..." stripped), how many, the replay
 * flags of the schedule; set by gpu_rt.c before any binding. */
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
void tly_gpu_bind_plan(const struct tly_gpu_plan *p);
/* Whether kernel replay / region granularity were enabled (for the view). */
void tly_gpu_bind_modes(int *replay, int *ranges, int *on);
/* Bindings so far (stable array, count read with acquire). */
struct tly_gpu_bind *tly_gpu_bind_all(int *n);
/* Disable every session (at the end of collection). */
void tly_gpu_bind_stop(void);

#endif /* TALLY_GPU_RT_H */
