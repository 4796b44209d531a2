/*
 * gpu_marks.h - GPU metrics per region, TALLY_CUDA_GRANULARITY=region
 * (gpu_marks.c).
 */
#ifndef TALLY_GPU_MARKS_H
#define TALLY_GPU_MARKS_H

#include "gpu/gpu_types.h"

/* Thread t entered or left a region; the next launch ends the GPU range
 * and starts one for t's innermost region unless the open range is that
 * region's.  Cheap when that granularity is off. */
void tly_gpu_rt_mark(const struct tly_rt_thread *t);
/* At a launch's entry, before the kernel is submitted: start the range of
 * the region wanted since the last launch, if any. */
void tly_gpu_rt_mark_launch(void);
/* Turn marks on (after the ranges-mode session is enabled). */
void tly_gpu_rt_marks_on(void);
/* The thread, region and launches of range `name` ("r<k>"); -1 when the
 * name is none of the marks. */
int tly_gpu_rt_mark_info(const char *name, const struct tly_rt_thread **t, int32_t *node, int64_t *launches);

#endif /* TALLY_GPU_MARKS_H */
