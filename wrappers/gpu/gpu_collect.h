/*
 * gpu_collect.h - the end of GPU collection (gpu_collect.c).
 */
#ifndef TALLY_GPU_COLLECT_H
#define TALLY_GPU_COLLECT_H

#include "gpu/gpu_types.h"

/* Harvest the per-kernel values (once, at the end).  Returns the kernel
 * statistics (*n rows) or NULL; `replay` tells the replay mode. */
const struct tly_gpu_kstat *tly_gpu_rt_collect(int64_t *n, int *replay);

#endif /* TALLY_GPU_COLLECT_H */
