/*
 * gpu_start.h - the GPU profiler's start in a thread of its own
 * (gpu_start.c).
 */
#ifndef TALLY_GPU_START_H
#define TALLY_GPU_START_H

/* Run fn(arg) in a thread (0, or -1 when none could be made); wait (from
 * any other thread) until it is done, -1 after the bounded wait; join it. */
int tly_gpu_start_background(void (*fn)(void *), void *arg);
int tly_gpu_start_wait(void);
void tly_gpu_start_join(void);

#endif /* TALLY_GPU_START_H */
