/*
 * gpu_state.h - the GPU metrics' shared state (gpu_state.c): the plan's
 * copy, the launches recorded on the bound contexts with their interned
 * kernel names, and the kernel statistics collected at the end.  Below
 * gpu_rt.c, gpu_bind.c, gpu_marks.c and gpu_collect.c, which all read it.
 */
#ifndef TALLY_GPU_STATE_H
#define TALLY_GPU_STATE_H

#include "gpu/gpu_types.h"

/* Keep the plan (gpu_rt.c, at the start, before any binding). */
void tly_gpu_state_plan(const struct tly_gpu_plan *p);
/* Launch of t on binding b (the launch hook's exit): counted as seen, and
 * recorded with t's region and the interned name when b profiles. */
void tly_gpu_state_launch(struct tly_gpu_bind *b, struct tly_rt_thread *t, const char *name);
/* Launches recorded on all contexts so far. */
int64_t tly_gpu_state_launches(void);

/* What collection reads at the end: gpu_collect.c fills the binding
 * fields (on, replay, ranges, nb, b) from gpu_bind.c, the rest from
 * tly_gpu_state_view. */
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
/* The state's part of v: n, image_pass, image_last, nl, ks, nks. */
void tly_gpu_state_view(struct tly_gpu_view *v);

#endif /* TALLY_GPU_STATE_H */
