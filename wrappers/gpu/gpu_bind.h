/*
 * gpu_bind.h - each CUDA context bound at its first launch (gpu_bind.c).
 */
#ifndef TALLY_GPU_BIND_H
#define TALLY_GPU_BIND_H

#include "gpu/gpu_types.h"

/* The binding of a launch's context, bound now if it is new (phase 0 of a
 * launch); NULL when none can be kept. */
struct tly_gpu_bind *tly_gpu_bind_launch(const tally_gpu_launch_t *l);
/* Without the launch hook (another CUPTI tool holds the subscription):
 * bind the calling thread's current context, else device `device`'s
 * primary one, now. */
void tly_gpu_bind_now(int device);
/* The binding of context uid, or NULL (no new binding). */
struct tly_gpu_bind *tly_gpu_bind_find(uint32_t uid);
/* The plan every binding follows; set by gpu_rt.c before any binding. */
void tly_gpu_bind_plan(const struct tly_gpu_plan *p);
/* Whether kernel replay / region granularity were enabled (for the view). */
void tly_gpu_bind_modes(int *replay, int *ranges, int *on);
/* Bindings so far (stable array, count read with acquire). */
struct tly_gpu_bind *tly_gpu_bind_all(int *n);
/* Disable every session (at the end of collection). */
void tly_gpu_bind_stop(void);

#endif /* TALLY_GPU_BIND_H */
