/*
 * rt_sched.h - a pass schedule as plain data, and the view of the job's
 * schedules a producer is handed (docs/DESIGN.md, "The parts and their
 * directions").  passes/ computes, hashes and compares the schedules; the
 * GPU producer (gpu/) fills the GPU's.  The passes part hands its view
 * through the parts list (struct tly_rt_part's `sched`, rt_parts.h), so no
 * producer calls into passes/.
 */
#ifndef TALLY_RT_SCHED_H
#define TALLY_RT_SCHED_H

#include <stdint.h>

#include "runtime/rt.h"

#define TLY_RT_SCHED_NAME 128
/* Mode of GPU application replay through saved counter data images (a
 * metric that needs several passes by itself; docs/passes.md). */
#define TLY_RT_MODE_IMAGE "application replay (image)"

/* One schedule; plain data so it can be broadcast as bytes. */
struct tly_rt_sched {
	int nev;                              /* scheduled events */
	int npasses;
	int gpu;                              /* 1: GPU metrics (kernel replay) */
	char device[64];                      /* CPU model or GPU chip */
	char names[TLY_RT_MAX_EVENTS][TLY_RT_SCHED_NAME];
	int pass_of[TLY_RT_MAX_EVENTS];
	uint64_t extra_hash;                  /* GPU: hash of the config images */
	uint64_t hash;                        /* of everything above */
};

/* The job's GPU schedule as the GPU producer sees it: what it fills and
 * what it reads, owned by passes/ (pass_sync.c). */
struct tly_rt_sched_view {
	struct tly_rt_sched *gpu;             /* the GPU schedule, to fill */
	int *gpu_replay;                      /* GPU metrics: application replay */
	int *gpu_image;                       /* ... through saved counter data images */
	const char *gpu_list;                 /* GPU metric names of TALLY_EVENTS ("" none) */
	int (*replay_index)(void);            /* TALLY_PASS_INDEX, -1 without application replay */
	uint64_t (*hash)(struct tly_rt_sched *s);   /* stores and returns the schedule's hash */
};

#endif /* TALLY_RT_SCHED_H */
