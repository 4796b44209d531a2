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
 * schedule.
 */
#ifndef TALLY_PASSES_H
#define TALLY_PASSES_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/rt.h"

#define TLY_PASS_MAX_EVENTS TLY_RT_MAX_EVENTS
#define TLY_PASS_NAME 128

/* One schedule; plain data so it can be broadcast as bytes. */
struct tly_pass_sched {
	int nev;                              /* scheduled events */
	int npasses;
	int gpu;                              /* 1: GPU metrics (kernel replay) */
	char device[64];                      /* CPU model or GPU chip */
	char names[TLY_PASS_MAX_EVENTS][TLY_PASS_NAME];
	int pass_of[TLY_PASS_MAX_EVENTS];
	uint64_t extra_hash;                  /* GPU: hash of the config images */
	uint64_t hash;                        /* of everything above */
};

/* ---- schedule (pass_plan.c) ------------------------------------------ */
/* Hook of the runtime's event choice (rt_state.c), after PAPI_library_init.
 * Takes GPU metrics out of *list (kept for wrappers/gpu/) and, in region
 * rotation, the CPU events that need several passes.  Returns 1 when the
 * runtime must count no events of its own (the passes module counts
 * them), else 0 with *list possibly replaced by the remaining CPU events. */
int tly_pass_take(const char **list);
/* Group CPU event names into passes by trying them together (start/stop
 * of a real event set).  0, or -1 when no event can be counted. */
int tly_pass_plan_cpu(struct tly_pass_sched *s, const char *const *names, int n);
/* The GPU metric names taken out of TALLY_EVENTS ("" when none). */
const char *tly_pass_gpu_list(void);

/* ---- application replay, in the runtime (pass_replay.c) ------------- */
/* TALLY_PASS_INDEX=k (set by tally-run --passes): the CPU schedule `s` is
 * computed as usual and this run counts only pass k's events.  Returns 1
 * and sets *list to them when it applies, 0 otherwise. */
/* Mode of GPU application replay through saved counter data images (a
 * metric that needs several passes by itself; docs/passes.md). */
#define TLY_PASS_MODE_IMAGE "application replay (image)"

struct tly_pass_state;
int tly_pass_replay_take(struct tly_pass_state *job, const char **list);
/* The pass this run counts (TALLY_PASS_INDEX), -1 without application replay. */
int tly_pass_replay_index(void);

/* ---- the job's schedules (pass_sync.c) -------------------------------- */
struct tly_pass_state {
	struct tly_pass_sched cpu, gpu;       /* in use (rank 0's after MPI_Init) */
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
uint64_t tly_pass_hash(struct tly_pass_sched *s);
/* At MPI_Init (mpi_lifecycle.c): broadcast rank 0's schedules on the
 * tool's communicator (an MPI_Comm *), compare, report.  Collective. */
void tly_pass_mpi_init(void *comm_ptr);

/* ---- region rotation (pass_rotate.c) ---------------------------------- */
/* Hooks of the region tree (regions/region.c): node `n` of thread t was
 * just entered / is about to be left. */
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

/* ---- writer helper (passes/pass_rows.c) ---------------------------- */
/* Path of node n of thread t, names separated by " / ". */
void tly_pass_node_path(const struct tly_rt_thread *t, int32_t n, char *buf, size_t len);

#endif /* TALLY_PASSES_H */
