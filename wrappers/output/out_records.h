/*
 * out_records.h - the records of a measured process: the process, its
 * settings and job, its threads and their region trees, the cost account.
 * The runtime (wrappers/runtime/, rt.h) fills them and its producers add
 * to them; the writer (this folder) reads them at the end, so they are
 * defined here, below both: the writer includes nothing of the runtime
 * (docs/DESIGN.md, "The parts and their directions").  What the writer
 * needs of the runtime's code (the record of this process, messages, the
 * clock) it reaches through output/out_host.h.
 */
#ifndef TALLY_OUT_RECORDS_H
#define TALLY_OUT_RECORDS_H

#include <pthread.h>
#include <stdint.h>

/* ---- the settings (runtime/rt_config.c fills them) -------------------- */
/* Every row of the settings table (src/settings/settings.def) as text. */
struct tly_rt_cfg {
#define TLY_SETTING(field, env, kind, def, max, help) char field[512];
#include "settings/settings.def"
#undef TLY_SETTING
};
/* Parsed values (after validation, defaults applied for malformed ones). */
struct tly_rt_opts {
	struct tly_rt_cfg raw;
	int mpi, mpi_regions, mpi_counters, ompt, regions, serial, signals, disable;
	int max_depth, exit_timeout, verbose, output_replace, max_regions;
	long nvtx_max_marks;
	int mpi_callsites;    /* frames per MPI call site, 0: off */
	int omp_counters;     /* counters at OpenMP region boundaries */
	int region_counters;  /* counters at user region boundaries */
	double budget_pct;    /* TALLY_BUDGET: percent of a thread's CPU time, 0: off */
	int discard;          /* TALLY_OUTPUT_NAME is the null device (/dev/null): measured, nothing written */
	int loaded;           /* tly_rt_config_load has filled it */
};

/* ---- the job of a process without MPI (runtime/rt_job.c) -------------- */
struct tly_rt_job {
	int rank, size;       /* from the launcher's environment; 0 and 1 when none */
	int known;            /* a launcher said */
	char launcher[32];    /* which variables said it */
	char id[96];          /* job identity, safe in a file name */
};

/* ---- sizes of the records (and of the file's arrays: h5_schema.h) ------ */
#define TLY_RT_MAX_EVENTS 16
#define TLY_RT_HIST 32        /* log2 message-size buckets */
#define TLY_RT_NAME 256
#define TLY_RT_SITE_DEPTH 8   /* deepest MPI call-site stack */
#define TLY_RT_MAX_PARTS 8    /* parts of the runtime (rt_parts.h) */
#define TLY_RT_BUDGET_PEND 8  /* regions/budget.c: pending regions listed */
#define TLY_RT_OMP_NAMES 256   /* runtime/rt_ompname.c: OpenMP names kept by code address (LULESH: ~70) */
#define TLY_RX_MEMO 256       /* regions/region_index.c: OpenMP lookups kept by pointer (LULESH: 30 regions a parent) */
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
	uint32_t key;                    /* the sampled reads' seed: the region's name and kind, the
					  * same on every thread, so a team's threads read on the same visits */
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
	/* the last lookups of OpenMP regions, keyed by their name's pointer
	 * (regions/region_index.c) */
	struct tly_rx_memo {
		const char *name;
		int32_t parent, node;
		int kind;
	} rx_memo[TLY_RX_MEMO];
	/* the OpenMP region names this thread looked up, by (code address,
	 * kind) (runtime/rt_ompname.c): in the record, whose thread-local
	 * pointer is initial-exec, so a lookup makes no __tls_get_addr call */
	struct tly_rt_omp_name_ent {
		const void *code;
		int kind;
		const char *name;
	} omp_names[TLY_RT_OMP_NAMES];
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

#endif /* TALLY_OUT_RECORDS_H */
