/*
 * regions.h - the region tree of a thread (regions/region.c): what every
 * producer (user regions, MPI, OpenMP, NVTX) records into.
 */
#ifndef TALLY_REGIONS_H
#define TALLY_REGIONS_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/rt.h"


/* Region enter/exit by name in the calling thread.  `name` must stay valid
 * while the call runs (it is copied when a node is created). */
int tly_rt_enter(struct tly_rt_thread *t, const char *name, int kind, int counters);
int tly_rt_exit(struct tly_rt_thread *t);
/* The same with the time stamp the caller already took (MPI wrappers share
 * theirs with the region); a negative time stamp: take one. */
int tly_rt_enter_at(struct tly_rt_thread *t, const char *name, int kind, int counters, int64_t t0);
int tly_rt_exit_at(struct tly_rt_thread *t, int64_t now);
/* Exit the innermost open region called `name` (closing those inside). */
int tly_rt_exit_named(struct tly_rt_thread *t, const char *name);
/* Exit the innermost open region of `kind` and those inside it; nothing
 * when none is open (OpenMP: ends of nested constructs may come late). */
void tly_rt_exit_kind(struct tly_rt_thread *t, int kind);
/* Stop the thread's counters and close its open regions (thread end). */
void tly_rt_thread_stop(struct tly_rt_thread *t);

#endif /* TALLY_REGIONS_H */
