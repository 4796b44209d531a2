/*
 * passes.h - multi-pass collection coordinated across ranks (docs/passes.md).
 *
 * When the requested events do not fit in one pass, the schedule (which
 * event is counted in which pass) is computed on every rank at start-up,
 * rank 0's is broadcast at MPI_Init on the tool's communicator and each
 * rank compares it with its own view (events, passes, device type: one
 * hash); a disagreement is reported, never ignored, and rank 0's schedule
 * is used.  CPU passes run by region rotation: the k-th visit of the
 * region named TALLY_PASS_REGION counts pass k mod P.  GPU metrics are
 * handled by wrappers/gpu/ (kernel replay) and recorded in the same
 * schedule, which this part hands the GPU producer through its part's
 * `sched` (runtime/rt_sched.h): no producer calls in here.
 */
#ifndef TALLY_PASSES_H
#define TALLY_PASSES_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/rt.h"
#include "runtime/rt_sched.h"

#define TLY_PASS_MAX_EVENTS TLY_RT_MAX_EVENTS
#define TLY_PASS_NAME TLY_RT_SCHED_NAME

/* ---- schedule (pass_plan.c) ------------------------------------------ */
/* Hook of the runtime's event choice (rt_state.c), after PAPI_library_init.
 * Takes GPU metrics out of *list (kept for wrappers/gpu/) and, in region
 * rotation, the CPU events that need several passes.  Returns 1 when the
 * runtime must count no events of its own (the passes module counts
 * them), else 0 with *list possibly replaced by the remaining CPU events. */
int tly_pass_take(const char **list);
/* Group CPU event names into passes by trying them together (start/stop
 * of a real event set).  0, or -1 when no event can be counted. */
int tly_pass_plan_cpu(struct tly_rt_sched *s, const char *const *names, int n);

/* ---- application replay, in the runtime (pass_replay.c) ------------- */
/* TALLY_PASS_INDEX=k (set by tally-run --passes): the CPU schedule `s` is
 * computed as usual and this run counts only pass k's events.  Returns 1
 * and sets *list to them when it applies, 0 otherwise. */
#define TLY_PASS_MODE_IMAGE TLY_RT_MODE_IMAGE

struct tly_pass_state;
int tly_pass_replay_take(struct tly_pass_state *job, const char **list);
/* The pass this run counts (TALLY_PASS_INDEX), -1 without application replay. */
int tly_pass_replay_index(void);

/* ---- the job's schedules (pass_sync.c) -------------------------------- */
struct tly_pass_state {
	struct tly_rt_sched cpu, gpu;       /* in use (rank 0's after MPI_Init) */
	uint64_t own_hash[2];                 /* this rank's own view, cpu / gpu */
	uint64_t r0_hash[2];                  /* rank 0's (0 before MPI_Init) */
	int agrees[2];                        /* 1 unless a mismatch was found */
	int rotate;                           /* region rotation is active */
	int replay;                           /* application replay: this run counts one pass */
	int replay_index;                     /* the pass this run counts (TALLY_PASS_INDEX) */
	char replay_list[2048];               /* its CPU events */
	int gpu_replay;                       /* GPU metrics: application replay */
	int gpu_image;                        /* ... through saved counter data images */
	char cpu_list[2048], gpu_list[2048];  /* TALLY_EVENTS split by kind */
};
struct tly_pass_state *tly_pass_state(void);
/* The schedule's hash (stored in s->hash): what the ranks compare. */
uint64_t tly_pass_hash(struct tly_rt_sched *s);
/* The part's job_start and job_started (pass_plan.c's tly_rt_part_passes):
 * at MPI_Init, broadcast rank 0's CPU schedule on the tool's communicator
 * (an MPI_Comm *), compare, report (collective); after every part's
 * job_start (the GPU's makes its schedule), the same for the GPU
 * schedule.  Nothing in a program without MPI (NULL). */
void tly_pass_sync_cpu(void *comm_ptr);
void tly_pass_sync_gpu(void *comm_ptr);
/* The job's GPU schedule as the GPU producer sees it (the part's `sched`). */
extern const struct tly_rt_sched_view tly_pass_sched_view;

/* ---- region rotation (pass_rotate.c) ---------------------------------- */
/* Hooks of the region tree (regions/region.c, registered by tly_pass_take
 * with tly_region_rotate when it rotates): node `n` of thread t was just
 * entered / is about to be left. */
void tly_pass_enter(struct tly_rt_thread *t, int32_t n);
void tly_pass_exit(struct tly_rt_thread *t, int32_t n);

/* One rotated region of one thread, for the writer. */
struct tly_pass_acc {
	int32_t node;
	int64_t visits[TLY_PASS_MAX_EVENTS];  /* per pass */
	int64_t value[TLY_PASS_MAX_EVENTS];   /* per event, in its pass */
};
/* Calls fn for every thread's rotated regions (under the module's lock). */
void tly_pass_foreach(void (*fn)(const struct tly_rt_thread *t, const struct tly_pass_acc *a,
				 void *arg), void *arg);

#endif /* TALLY_PASSES_H */
