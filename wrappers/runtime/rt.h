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
#include <stdint.h>
#include <time.h>

#define TLY_RT_MAX_EVENTS 16
#define TLY_RT_HIST 32        /* log2 message-size buckets */
#define TLY_RT_NAME 256
#define TLY_RT_SITE_DEPTH 8   /* deepest MPI call-site stack */

/* ---- settings (rt_config.c) ------------------------------------------ */
struct tly_rt_cfg {
#define TLY_SETTING(field, env, kind, def, help) char field[512];
#include "settings.def"
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
};
void tly_rt_config_load(struct tly_rt_opts *o);   /* quiet */
void tly_rt_config_report(void);                  /* malformed and unknown settings, once per job */
/* Values well-formed but meaningless (rt_config_check.c): said once per job. */
void tly_rt_config_check(const struct tly_rt_cfg *raw);
int tly_rt_name_in_list(const char *list, const char *name);

/* ---- GCC OpenMP programs on LLVM libomp (rt_libomp.c) ----------------- */
/* When the process's GOMP_* calls reach GNU libgomp, run it again with
 * libomp preloaded (`how`: TALLY_LIBOMP); where that cannot be done, warn
 * once.  Returns unless it re-executes the program. */
void tly_rt_libomp_switch(const char *how);

/* ---- source names of code addresses (rt_srcname.c) -------------------
 * name: "function (file:line)[ in caller (file:line)...]" (inlined frames)
 * from DWARF, else "symbol+0xoffset"; raw: "module+0xoffset".  is_return:
 * pc is a return address (the call before it is named).  1 when DWARF
 * named it.  Not for hot paths: callers cache per address. */
int tly_rt_srcname(const void *pc, int is_return, char *name, size_t nlen, char *raw, size_t rlen);
/* A region name "<label> @ <src>" that carries its raw address after
 * TLY_RT_ADDR_SEP; the writer puts that part in regions.address. */
#define TLY_RT_ADDR_SEP '\x1d'
void tly_rt_name_with_address(char *buf, size_t len, const char *label, const char *src, const char *raw);

/* ---- logging (rt_log.c) ---------------------------------------------- */
void tly_rt_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A message about the whole job (settings, events): said by the job's
 * first process only (MPI rank 0, or rank 0 of the launcher's environment,
 * which is known before MPI_Init), so once per job, not once per rank. */
void tly_rt_log_job(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- regions (regions/region.c) -------------------------------------- */
enum tly_rt_kind { TLY_RK_ROOT, TLY_RK_USER, TLY_RK_MPI, TLY_RK_OMP_PARALLEL,
	TLY_RK_OMP_LOOP, TLY_RK_OMP_BARRIER, TLY_RK_OMP_TASK };

/* Where new regions go once a thread has TALLY_MAX_REGIONS of them. */
#define TLY_RT_OVERFLOW_REGION "(other regions)"

struct tly_rt_node {
	const char *name;     /* owned copy */
	const char *key;      /* the name pointer it was created with (MPI: static) */
	int32_t parent, first_child, next_sibling, last_child;
	int32_t kind;
	int32_t counted;      /* counters were read at a visit (else: not measured) */
	uint32_t hash;        /* of (parent, kind, name): regions/region_index.c */
	int64_t visits, incl_ns;
	int64_t cnt[TLY_RT_MAX_EVENTS];
};

struct tly_rt_frame {
	int32_t node;
	int counters;         /* values read at entry */
	int64_t t0;
	int64_t v0[TLY_RT_MAX_EVENTS];
};

struct tly_rt_mpi_stat {
	int64_t calls, time_ns, sent, recv;
	int64_t hist[TLY_RT_HIST];
	int32_t rparent;      /* region cache: parent node + 1 (0: empty) */
	int32_t rnode;        /* the call's node under that parent */
};

/* One measured thread.  Owned by its thread while it runs; read by the
 * writer at finalize/exit.  Never freed before the process ends. */
struct tly_rt_thread {
	int index;            /* 0 = first (main) thread, in order of creation */
	int kind;             /* 0 main, 1 OpenMP, 2 other */
	long ktid;
	int evset;            /* runtime's own set; -1 when counters are off */
	int nev;
	int stopped;
	int64_t final_ns;     /* root inclusive time once stopped */
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
	int in_mpi;           /* wrapper nesting guard */
	struct tly_mpi_sites *sites;  /* MPI call sites (mpi/mpi_sites.c), NULL: none yet */
	struct tly_rt_mpi_stat *mpi;  /* [tly_mpi_nfuncs] */
	int64_t overhead_ns;
	struct tly_rt_thread *next;
};

/* ---- clock (runtime/rt_clock.c) ---------------------------------------
 * CLOCK_MONOTONIC ns, read from the CPU's counter when the kernel vouches
 * for it (see rt_clock.c), else from clock_gettime. */
struct tly_rt_clock {
	uint64_t c0;          /* counter at the anchor */
	int64_t ns0;          /* CLOCK_MONOTONIC at the anchor */
	uint64_t mult;        /* ns per tick, 32.32 fixed point */
	int fast;             /* published last (release) */
};
extern struct tly_rt_clock tly_rt_clk;
void tly_rt_clock_init(void);     /* once, at start-up */
int tly_rt_clock_is_fast(void);

static inline uint64_t tly_rt_counter(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#else
	return 0;
#endif
}

static inline int64_t tly_rt_now(void)
{
	struct timespec ts;

	if (__atomic_load_n(&tly_rt_clk.fast, __ATOMIC_ACQUIRE)) {
		uint64_t d = tly_rt_counter() - tly_rt_clk.c0;

		return tly_rt_clk.ns0 + (int64_t)(((unsigned __int128)d * tly_rt_clk.mult) >> 32);
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Calling thread's record, created (and its event set started) on first
 * use; NULL when the runtime is off or out of memory. */
struct tly_rt_thread *tly_rt_self_slow(void);
struct tly_rt_thread *tly_rt_self_kind(int kind);
/* initial-exec: the MPI wrappers and regions look this up on every call,
 * and the general-dynamic model costs a __tls_get_addr call each time */
extern _Thread_local struct tly_rt_thread *tly_rt_self_tls __attribute__((tls_model("initial-exec")));

static inline struct tly_rt_thread *tly_rt_self(void)
{
	struct tly_rt_thread *t = tly_rt_self_tls;

	return t ? t : tly_rt_self_slow();
}
/* Create the calling thread's record without the start-up check (used
 * while the runtime starts). */
struct tly_rt_thread *tly_rt_thread_new_self(int kind);
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
/* Stop the thread's counters and close its open regions (thread end). */
void tly_rt_thread_stop(struct tly_rt_thread *t);
void tly_rt_node_path(const struct tly_rt_thread *t, int32_t n, char *buf, size_t len);

/* ---- the job of a process without MPI (runtime/rt_job.c) -------------- */
struct tly_rt_job {
	int rank, size;       /* from the launcher's environment; 0 and 1 when none */
	int known;            /* a launcher said */
	char launcher[32];    /* which variables said it */
	char id[96];          /* job identity, safe in a file name */
};
/* Rank, size and identity from RANK/WORLD_SIZE, OMPI_COMM_WORLD_*,
 * PMIX_RANK, PMI_RANK/PMI_SIZE, SLURM_PROCID/SLURM_NTASKS; 1 when found. */
int tly_rt_job_env(struct tly_rt_job *j);
/* The directory of per-process pieces beside the job file `final`. */
void tly_rt_job_dir(const char *final, const struct tly_rt_job *j, char *buf, size_t len);
int tly_rt_job_pieces(const char *dir);              /* pieces present, -1: no dir */
int tly_rt_job_claim_merge(const char *dir, int size); /* 1: this process merges */
void tly_rt_job_clean(const char *dir);
/* 1 when the program itself (not the preload) needs libmpi. */
int tly_rt_program_links_mpi(void);
/* Merge the pieces rank<r>.h5 of dir into one job file (output/h5_merge.c). */
int tly_out_merge(const char *dir, int size, const char *path);

/* ---- process state (runtime/rt_state.c) ------------------------------- */
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
	int64_t overhead_ns;  /* set-up and writing */
	_Atomic int64_t marks_dropped;  /* NVTX marks beyond TALLY_NVTX_MAX_MARKS */
	int64_t cpu_ns;       /* process CPU time at the stop (getrusage) */
	char why[64];         /* reason of a partial file */
	char cmdline[2048];
	char exe[256];
	char outname[1024];   /* agreed file path, set at MPI_Init or first write */
	struct tly_rt_thread *threads;  /* list, guarded by lock */
	int nthreads;
	pthread_mutex_t lock;
};
struct tly_rt_proc *tly_rt_proc(void);
void tly_rt_start(void);          /* process start (constructor) */
void tly_rt_stop_all(void);       /* freeze every thread's root values */
int64_t tly_rt_process_cpu_ns(void);  /* user + system time of all threads */
/* Start the runtime once (when the preload library loads) and say whether
 * it measures.  Called back from inside the start-up it answers 0 instead
 * of waiting for itself. */
int tly_rt_enabled(void);
/* Like tly_rt_enabled, but inside the start-up it answers what the start-up
 * has decided (for the OMPT tool, which must register while libomp starts). */
int tly_rt_will_measure(void);
/* Agree on the output path (rank 0's choice when comm is non-NULL). */
void tly_rt_choose_outname(char *buf, size_t len, const char *suffix);

/* ---- output (output/) --------------------------------------------------- */
/* Write the job file.  comm_ptr: pointer to the tool's MPI_Comm, or NULL
 * for a serial (or per-rank partial) file.  0 or -1. */
int tly_out_write(void *comm_ptr, char *path, size_t len, int partial);
void tly_out_init(void);

/* ---- exit paths (runtime/rt_exit.c) ----------------------------------- */
void tly_rt_exit_install(void);
void tly_rt_write_partial(const char *why);
/* The watchdog over the job's end (MPI_Finalize: the collective write and
 * PMPI_Finalize itself).  Armed with the caller's jump buffer: after
 * TALLY_EXIT_TIMEOUT seconds the watchdog jumps back there (sigsetjmp
 * returns 1) so MPI_Finalize returns to the application, which then ends
 * with its own exit status (the runtime makes sure nothing stuck in MPI or
 * HDF5 holds the exit up). */
#include <setjmp.h>
void tly_rt_guard_arm(sigjmp_buf *jb);
void tly_rt_guard_disarm(void);
void tly_rt_guard_abandoned(void);   /* after sigsetjmp returned 1 */

/* ---- MPI (mpi/) -------------------------------------------------------- */
extern const int tly_mpi_nfuncs;
extern const char *const tly_mpi_names[];
extern const unsigned char tly_mpi_carries[];   /* 1: the call carries a message */

#endif /* TALLY_RT_H */
