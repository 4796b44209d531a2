/*
 * gpu_scope.h - the region a kernel launch is attributed to,
 * TALLY_CUDA_SCOPE (gpu_scope.c).
 */
#ifndef TALLY_GPU_SCOPE_H
#define TALLY_GPU_SCOPE_H

#include "gpu/gpu_types.h"

/* Start (read the setting); note a region change of t; the thread and
 * region a launch of t is attributed to (t's own innermost region, else
 * under 'process' the region open in the process). */
void tly_gpu_scope_start(void);
/* Give regions/ the process's region (tly_region_scope): NCCL's calls
 * placed there (nvtx/nvtx_borrow.c); follows it from NCCL's appearance. */
void tly_gpu_scope_register(void);
void tly_gpu_scope_note(const struct tly_rt_thread *t);
void tly_gpu_scope_of(const struct tly_rt_thread *t, const struct tly_rt_thread **pt, int32_t *node);
/* 1 when t's launches count for another thread's region (process scope,
 * t at its root while a region is open elsewhere). */
int tly_gpu_scope_elsewhere(const struct tly_rt_thread *t);

#endif /* TALLY_GPU_SCOPE_H */
