/*
 * rt.h - internal interface of the measurement runtime (libtally-preload.so).
 *
 * The runtime owns a private copy of the core library (linked from
 * libtally_internal.a and hidden by the preload's version script), so its
 * per-thread event sets never meet the application's own PAPI sets: an
 * application calling PAPI_start under tally-run talks to libtally.so and
 * keeps its PAPI semantics (one running set per thread and component in
 * *its* instance), while the runtime's sets live in the other instance.
 */
#ifndef TALLY_RT_H
#define TALLY_RT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "runtime/rt_clock.h"
#include "runtime/rt_config.h"
#include "runtime/rt_log.h"
#include "runtime/rt_job.h"

#define TLY_RT_MAX_EVENTS 16
#define TLY_RT_HIST 32        /* log2 message-size buckets */
#define TLY_RT_NAME 256
#define TLY_RT_SITE_DEPTH 8   /* deepest MPI call-site stack */
#define TLY_RT_MAX_PARTS 8    /* parts of the runtime (rt_parts.h) */
#define TLY_RT_BUDGET_PEND 8  /* regions/budget.c: pending regions listed */
#define TLY_RT_BUDGET_LAST 31 /* regions/budget.c: last record costs kept (odd: a median) */

/* ---- the region tree of a thread (regions/regions.h works on it) ----- */
enum tly_rt_kind { TLY_RK_ROOT, TLY_RK_USER, TLY_RK_MPI, TLY_RK_OMP_PARALLEL,
	TLY_RK_OMP_LOOP, TLY_RK_OMP_BARRIER, TLY_RK_OMP_TASK };

/* Where new regions go once a thread has TALLY_MAX_REGIONS of them. */
#define TLY_RT_OVERFLOW_REGION "(other regions)"
/* A region name may carry its code's raw address after this character
 * (runtime/rt_srcname.h); the writer puts that part in regions.address. */
#define TLY_RT_ADDR_SEP '\x1d'

/* A region whose records the cost budget degraded (regions/budget.c):
 * what, from which visit and time, and why; kept apart from the node (few
 * regions have one).  The steps in order (their numbers are on disk: the
 * degraded table's step): counter reads off, then sampled 1 in N (values
 * scaled: estimates), then visits only. */
enum tly_rt_degrade_step { TLY_DEG_NONE, TLY_DEG_COUNTERS_OFF, TLY_DEG_SAMPLED, TLY_DEG_VISITS_ONLY };
struct tly_rt_degrade {
	int32_t step;
	int32_t sample_n;                /* TLY_DEG_SAMPLED: reads on 1 visit in N (0: never sampled) */
	int32_t gap;                     /* visits until the next sampled read */
	uint32_t rng;                    /* the gaps' generator (xorshift) */
	int64_t from_visit, from_ns;     /* visits and time since start when it began */
	int64_t off_incl_ns, off_timed;  /* the node's time and timed visits then: its mean without reads after */
	int64_t sampled_visit, sampled_ns;  /* when sampled reads began (0: never) */
	int64_t step3_visit, step3_ns;   /* when it reached TLY_DEG_VISITS_ONLY (0: never) */
	int64_t sampled;                 /* visits whose counters were read while sampled */
	int64_t weight;                  /* sum of N over them: the visits they stand for */
	double cost_pct;                 /* its records' measured cost, % of its time */
	double sample_pct;               /* its records' cost at 1 in N, % of its time without reads */
	int64_t scnt[TLY_RT_MAX_EVENTS]; /* sampled visits' counter sums, each times its N */
};

struct tly_rt_node {
	const char *name;     /* owned copy */
	const char *key;      /* the name pointer it was created with (MPI: static) */
	int32_t parent, first_child, next_sibling, last_child;
	int32_t kind;
	int32_t counted;      /* counters were read at a visit (else: not measured) */
	uint32_t hash;        /* of (parent, kind, name): regions/region_index.c */
	int64_t visits, incl_ns;
	int64_t counted_visits;   /* visits whose counters are in cnt */
	int64_t timed_visits;     /* visits whose time is in incl_ns */
	struct tly_rt_degrade *deg;   /* NULL: recorded in full */
	int64_t cnt[TLY_RT_MAX_EVENTS];
};

/*
 * The cost account: each kind of record the runtime makes, how many, and
 * how many of them were timed for how long (one in TLY_RT_COST_SAMPLE),
 * so its cost in the file is measured in this run.  A new kind of record
 * (call-path samples...) adds one line here.
 */
#define TLY_RT_COST_KINDS(X) \
	X(counter_read, "counter reads at region boundaries") \
	X(visit, "region bookkeeping of a visit: node lookup, clock reads, fold")
enum tly_rt_cost_kind {
#define TLY_RT_COST_ENUM(name, doc) TLY_COST_##name,
	TLY_RT_COST_KINDS(TLY_RT_COST_ENUM)
#undef TLY_RT_COST_ENUM
	TLY_COST_N
};
struct tly_rt_cost {
	int64_t n, timed, timed_ns;
};
static inline int64_t tly_rt_cost_ns(const struct tly_rt_cost *c, int64_t fallback_each)
{
	return c->timed ? (int64_t)((double)c->timed_ns / (double)c->timed * (double)c->n) : c->n * fallback_each;
}

struct tly_rt_frame {
	int32_t node;
	int counters;         /* values read at entry (2: a sampled read, regions/budget.h) */
	int timed;            /* t0 read (the budget's visits-only step: not) */
	int borrowed;         /* a frame of the process's region, no visit (regions.h) */
	int64_t t0;
	int64_t v0[TLY_RT_MAX_EVENTS];
};

/* What started a thread: the threads table's `kind` (these values are on
 * disk: docs/file-format.md). */
enum tly_rt_thread_kind { TLY_RT_THREAD_MAIN = 0, TLY_RT_THREAD_OPENMP = 1, TLY_RT_THREAD_OTHER = 2 };

/* One measured thread.  Owned by its thread while it runs; read by the
 * writer at finalize/exit.  Never freed before the process ends. */
struct tly_rt_thread {
	int index;            /* 0 = first (main) thread, in order of creation */
	int listed;           /* 1 once in the process's list, index set (atomic) */
	enum tly_rt_thread_kind kind;
	long ktid;
	int evset;            /* runtime's own set; -1 when counters are off */
	int nev;
	int stopped;
	int64_t final_ns;     /* root inclusive time once stopped */
	int64_t stop_ns;      /* when it was stopped (the end of its root's time) */
	int64_t final_v[TLY_RT_MAX_EVENTS];
	struct tly_rt_node *nodes;
	int32_t nnodes, cap;
	int32_t *htab;        /* node indices by hash (-1: empty) */
	uint32_t hcap;
	int32_t nhashed;
	struct tly_rt_frame *stack;
	int depth, truncated_depth;
	int64_t truncated;    /* enters beyond max depth */
	int64_t folded;       /* enters of new regions beyond TALLY_MAX_REGIONS */
	/* what its records cost (reads of evset at region boundaries, visits):
	 * one in TLY_RT_COST_SAMPLE timed, so the file's event_ns has their
	 * cost as it was here */
	struct tly_rt_cost cost[TLY_COST_N];
	/* the cost budget (regions/budget.c): enters until the next check,
	 * the thread's CPU time and cost at the last one */
	int32_t budget_tick;
	int32_t budget_pending;   /* regions with counters off, their sampling not yet chosen */
	int32_t budget_pend[TLY_RT_BUDGET_PEND];   /* their nodes, while that few */
	int32_t budget_pend_lost;  /* more were pending at once: not all listed */
	/* each kind's last timed costs, ns: the budget judges a region by
	 * their median, which a preempted sample (up to 50 us) or the first
	 * visits' allocations do not sway */
	int32_t budget_last[TLY_COST_N][TLY_RT_BUDGET_LAST];
	int64_t budget_cpu, budget_cost;
	int64_t waits_skipped;    /* waits of one-thread teams, not recorded */
	int64_t degraded;         /* regions degraded by the budget */
	/* each part's own data of the thread, by the part's place in the
	 * parts list (rt_parts.h: TLY_RT_PART_<name>); NULL: none */
	void *slot[TLY_RT_MAX_PARTS];
	int64_t overhead_ns;
	struct tly_rt_thread *next;
};

#define TLY_RT_COST_SAMPLE 16

/* Calling thread's record, created (and its event set started) on first
 * use, which starts the runtime (rt_state.c); NULL when the runtime is off
 * or out of memory. */
struct tly_rt_thread *tly_rt_self_slow(void);
struct tly_rt_thread *tly_rt_self_kind(enum tly_rt_thread_kind kind);
/* initial-exec: the MPI wrappers and regions look this up on every call,
 * and the general-dynamic model costs a __tls_get_addr call each time */
extern _Thread_local struct tly_rt_thread *tly_rt_self_tls __attribute__((tls_model("initial-exec")));

static inline struct tly_rt_thread *tly_rt_self(void)
{
	struct tly_rt_thread *t = tly_rt_self_tls;

	/* every wrapper comes here first: the safe point of a dying process */
	if (__builtin_expect(atomic_load_explicit(&tly_rt_dying, memory_order_relaxed) != 0, 0))
		tly_rt_safe_point();

	return t ? t : tly_rt_self_slow();
}
/* Create the calling thread's record without the start-up check (used
 * while the runtime starts). */
struct tly_rt_thread *tly_rt_thread_new_self(enum tly_rt_thread_kind kind);
/* The path of node n of the thread's tree, names joined by '\x1f'. */
void tly_rt_node_path(const struct tly_rt_thread *t, int32_t n, char *buf, size_t len);
/* The same as the tables show it: names joined by " / ", without their
 * raw addresses (the passes' and the GPU's rows). */
void tly_rt_node_path_shown(const struct tly_rt_thread *t, int32_t n, char *buf, size_t len);
/* ---- process state (runtime/rt_proc.c; filled by the start-up, rt_state.c) */
struct tly_rt_event_desc {
	char name[128], component[32], units[32], descr[256];
};
struct tly_rt_proc {
	struct tly_rt_opts opt;
	int active;           /* measuring */
	int will_measure;     /* start-up decided to measure (set before active) */
	int in_mpi_job;       /* MPI_Init seen */
	int finished;         /* file (or partial) written */
	int rank, nranks;     /* MPI's, else the launcher's (rt_job.c), else 0 and 1 */
	long pid;             /* the measured process (a fork child differs) */
	struct tly_rt_job job;
	int nev;
	struct tly_rt_event_desc ev[TLY_RT_MAX_EVENTS];
	int codes[TLY_RT_MAX_EVENTS];
	int64_t start_ns, end_ns;
	int64_t start_wall, end_wall;  /* UNIX seconds */
	/* Tally's own cost (schema 5): start-up from the constructor's first
	 * clock read (init), its work at MPI_Init, the clock and counter reads
	 * of its events (estimated: visits x the costs measured at start-up),
	 * the end (stop, unification, rows; the file write itself is the
	 * write_seconds attribute); overhead_ns is their sum. */
	int64_t init_ns, mpi_init_ns, exit_ns, exit_t0;
	int64_t clock_read_ns, counter_read_ns;   /* measured at start-up */
	int64_t overhead_ns;
	/* call-path sampling's cost, set by its writer module (sampling/,
	 * listed before regions/, whose rows put it in the ranks table) */
	int64_t sampling_ns;
	_Atomic int64_t marks_dropped;  /* NVTX marks beyond TALLY_NVTX_MAX_MARKS */
	int64_t cpu_ns;       /* process CPU time at the stop (getrusage) */
	int64_t load_cpu_ns;  /* process CPU time at Tally's start-up: exec and loading */
	int64_t init_cpu_ns;  /* the start-up's CPU time (init_ns is its wall time) */
	int64_t mpi_init_cpu_ns, exit_cpu0;   /* the same for MPI_Init's part and the end */
	char why[64];         /* reason of a partial file */
	char cmdline[2048];
	char settings[8192];  /* the settings given (tly_settings_given), the file's settings attribute */
	char exe[256];
	char outname[1024];   /* agreed file path, set at MPI_Init or first write */
	struct tly_rt_thread *threads;  /* list, guarded by lock */
	int nthreads;
	pthread_mutex_t lock;
};
struct tly_rt_proc *tly_rt_proc(void);
/* rt_thread.c: */
void tly_rt_stop_all(void);       /* freeze every thread's root values */
int64_t tly_rt_process_cpu_ns(void);  /* user + system time of all threads */
int64_t tly_rt_thread_cpu_ns(void);   /* the calling thread's CPU time */
/* rt_state.c, the start-up: */
/* Start the runtime once (when the preload library loads) and say whether
 * it measures.  Called back from inside the start-up it answers 0 instead
 * of waiting for itself. */
int tly_rt_enabled(void);
/* Like tly_rt_enabled, but inside the start-up it answers what the start-up
 * has decided (for the OMPT tool, which must register while libomp starts). */
int tly_rt_will_measure(void);

#endif /* TALLY_RT_H */
