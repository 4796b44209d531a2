/*
 * gpu_rt.h - GPU metrics under the measurement runtime (docs/passes.md).
 *
 * cuda::: metrics named in TALLY_EVENTS are collected per kernel through
 * the cuda component's event-group model: the metric list's group sets
 * are the GPU pass schedule (recorded with the CPU one and checked across
 * ranks), a list needing two or more passes runs in kernel replay (every
 * kernel replayed once per pass inside one run), and the launch hook
 * ties each kernel to its rank, launching thread and current region.
 * The top of wrappers/gpu: gpu_rt.c calls the other files, none calls it.
 */
#ifndef TALLY_GPU_RT_H
#define TALLY_GPU_RT_H

#include <stdint.h>

/* Set up collection of the GPU metrics of TALLY_EVENTS: the metric list,
 * its GPU pass schedule (recorded with the CPU one and checked across
 * ranks) and the launch hook.  No GPU is chosen here: each CUDA context is
 * bound at its first kernel launch (gpu_bind.c), on whatever device the
 * program chose by then.  Called at MPI_Init (comm_ptr: the tool's
 * MPI_Comm *) or at the start of a program without MPI; a failure is
 * logged and GPU data is left out. */
void tly_gpu_rt_start(void *comm_ptr);

/* The event trace's launch observer (wrappers/trace/trace_gpu.c): called
 * on the launching thread at each launch's enter with its CUPTI
 * correlation id; NULL removes it. */
void tly_gpu_rt_launch_observer(void (*fn)(uint32_t correlation_id));

/* Whether values are per region (no cache control there). */
int tly_gpu_rt_ranges(void);
/* Whether GPU metrics are collected per kernel (kernels serialized). */
int tly_gpu_rt_per_kernel(void);

#endif /* TALLY_GPU_RT_H */
