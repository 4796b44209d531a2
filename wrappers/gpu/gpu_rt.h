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

#define TLY_GPU_MAX_METRICS TLY_RT_MAX_EVENTS

/* Per rank, device, launching thread, region and kernel. */
struct tly_gpu_kstat {
	const struct tly_rt_thread *t;   /* NULL when the launch was not seen */
	int32_t node;                    /* region of t open at the launch */
	int device;
	const char *kernel;              /* whole demangled name (owned by the collector) */
	int64_t launches;
	double total[TLY_GPU_MAX_METRICS], min[TLY_GPU_MAX_METRICS], max[TLY_GPU_MAX_METRICS];
};

/* Set up collection of the GPU metrics of TALLY_EVENTS on the calling
 * thread's current CUDA context (device 0's primary context when there is
 * none) and fill the GPU schedule.  Called at MPI_Init (comm_ptr: the
 * tool's MPI_Comm *, collective) before the schedules are compared; a
 * failure is logged and GPU data is left out. */
void tly_gpu_rt_start(void *comm_ptr);
/* gpu_share.c: the rank that profiles this rank's GPU (the lowest rank
 * with the same host, CUDA_VISIBLE_DEVICES and device); collective. */
int tly_gpu_share_owner(void *comm_ptr, int device, int wants);
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

/* Row name of region-granularity values in gpu_kernels. */
#define TLY_GPU_REGION_ROW "(region)"

/* ---- shared by gpu_rt.c and gpu_collect.c ---------------------------- */
struct tly_gpu_view {
	int on, device, n, replay;
	int ranges;                      /* region granularity: rows are marks' ranges */
	int image_pass;                  /* application replay through images: this run's pass, else -1 */
	int image_last;                  /* ... and whether it is the last (the evaluated one) */
	const uint64_t *ids;             /* tally_gpu_event_t[n] */
	struct tally_gpu_group_sets *sets;
	int64_t nl;                      /* launches recorded by the hook */
	struct tly_gpu_kstat **ks;       /* result, collected once */
	int64_t *nks;
};
void tly_gpu_rt_view(struct tly_gpu_view *v);
/* Name, thread and region of the k-th recorded launch. */
const char *tly_gpu_rt_launch(int64_t k, const struct tly_rt_thread **t, int32_t *node);

#endif /* TALLY_GPU_RT_H */
