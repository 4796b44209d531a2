/*
 * tally_gpu.h - GPU counters: the CUPTI event-group model on modern GPUs.
 *
 * CUPTI's legacy Event API (event domains, event groups, group sets,
 * kernel replay, collection modes) returns
 * CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED on compute capability 7.5 and
 * later.  These functions offer the same model, built on CUPTI's Profiler
 * Host API (metric enumeration, config images, pass counting) and Range
 * Profiler.  The mapping:
 *
 *   legacy CUPTI                      Tally
 *   event domain                      hardware unit of a metric (sm, smsp,
 *                                     dram, lts, l1tex, ...)
 *   event                             metric (base metric + rollup/submetric,
 *                                     e.g. smsp__inst_executed.sum)
 *   event group                       metrics collected together in ONE pass
 *   event group set                   one pass of a metric list; the number
 *                                     of sets is the Profiler Host API's
 *                                     GetNumOfPasses for the list
 *   kernel replay mode                Range Profiler AutoRange + KernelReplay
 *   CUPTI_EVENT_COLLECTION_MODE_KERNEL      per-kernel ranges (AutoRange)
 *   CUPTI_EVENT_COLLECTION_MODE_CONTINUOUS  one user range over the
 *                                     enable..read window (UserRange)
 *
 * The same metrics are PAPI native events named
 * "cuda:::<metric>:device=<n>" (see docs/gpu.md).
 *
 * Every function returns PAPI_OK or a negative PAPI error code, and
 * records a detail sentence that PAPI_perror prints.  Legacy CUPTI error
 * meanings map to PAPI codes as follows:
 *   CUPTI_ERROR_INVALID_OPERATION (group is enabled)   -> PAPI_EISRUN
 *   CUPTI_ERROR_NOT_COMPATIBLE (cannot share a pass)   -> PAPI_ECNFLCT
 *   CUPTI_ERROR_MAX_LIMIT_REACHED (group full)         -> PAPI_ECOUNT
 *   CUPTI_ERROR_NOT_READY / group not enabled          -> PAPI_ENOTRUN
 *   CUPTI_ERROR_INVALID_EVENT_NAME / _ID               -> PAPI_ENOEVNT
 *   more passes than the mode can collect              -> PAPI_EMULPASS
 *   profiler already attached to the context/another
 *   CUPTI subscriber                                   -> PAPI_ECNFLCT
 *   CUPTI_ERROR_INSUFFICIENT_PRIVILEGES                -> PAPI_EPERM
 *   no GPU / driver / CUPTI                            -> PAPI_ENOSUPP
 *
 * All calls may be made before PAPI_library_init; they load libcuda and
 * libcupti on first use.  Functions are thread-safe; a group must not be
 * used by two threads at once.
 */
#ifndef TALLY_GPU_H
#define TALLY_GPU_H

#include <stddef.h>
#include <stdint.h>
#include "papi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TALLY_GPU_NAME_LEN 256
#define TALLY_GPU_DESC_LEN 1024
#define TALLY_GPU_GROUP_MAX_EVENTS 64

/* ---- Devices ----------------------------------------------------------
 * Devices are numbered as the CUDA driver numbers them (CUDA_VISIBLE_DEVICES
 * applies).  tally_gpu_open_chip adds a host-only device for a chip name
 * ("GH100"): enumeration and group sets work on it without a GPU, but
 * nothing can be collected. */
typedef struct tally_gpu_device_info {
	size_t size;                    /* set to sizeof(tally_gpu_device_info_t) */
	int device;
	int host_only;                  /* 1: opened with tally_gpu_open_chip */
	char name[TALLY_GPU_NAME_LEN];  /* "NVIDIA H100 80GB HBM3" */
	char chip[64];                  /* "GH100" */
	int cc_major, cc_minor;
	int num_sms;
	int profiling_ok;               /* counters can be collected */
	char reason[TALLY_GPU_NAME_LEN];/* why not, when profiling_ok == 0 */
	int num_metrics;                /* base metrics of the chip */
	int num_domains;
	double enum_seconds;            /* time the metric catalog took to load */
	int enum_from_cache;            /* 1: read from the on-disk cache */
	/* physical identity (added later: a caller whose size ends before
	 * uuid gets the fields above only); "" for host-only devices */
	char uuid[48];                  /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi -L */
	char pci_bus_id[32];            /* "0000:19:00.0" (domain:bus:device.function) */
} tally_gpu_device_info_t;

/* 1 when a GPU metric's value depends on the cache state before the
 * kernel (DRAM, L2, L1/tex, frame buffer: dram__, lts__, l1tex__, ...;
 * with or without the cuda::: prefix), else 0. */
PAPI_EXPORT int tally_gpu_metric_cache_dependent(const char *name);
/* 1 when a per-kernel collection of this process replayed its kernels
 * itself, with an L2 flush before every pass (cache-dependent metrics in
 * several passes, TALLY_CUDA_CACHE=flush), else 0 (docs/gpu.md). */
PAPI_EXPORT int tally_gpu_replay_flushes_each_pass(void);
PAPI_EXPORT int tally_gpu_num_devices(int *count);
PAPI_EXPORT int tally_gpu_device_info(int device, tally_gpu_device_info_t *info);
PAPI_EXPORT int tally_gpu_open_chip(const char *chip, int *device);

/* ---- Domains (hardware units) and events (metrics) -------------------- */
typedef struct tally_gpu_domain_info {
	size_t size;
	char name[64];           /* "smsp" */
	int num_events;          /* base metrics measured by this unit */
	int instance_count;      /* units on the device; 0 when unknown */
} tally_gpu_domain_info_t;

PAPI_EXPORT int tally_gpu_domain_info(int device, int domain, tally_gpu_domain_info_t *info);
/* Event ids of a domain's base metrics (each with its default rollup:
 * .sum for counters, .ratio for ratios, .avg.pct_of_peak_sustained_elapsed
 * for throughputs).  *n in: capacity of ids; out: number of events. */
typedef uint64_t tally_gpu_event_t;
PAPI_EXPORT int tally_gpu_domain_events(int device, int domain, tally_gpu_event_t *ids, int *n);

enum tally_gpu_category { TALLY_GPU_COUNTER = 0, TALLY_GPU_RATIO = 1, TALLY_GPU_THROUGHPUT = 2 };
enum tally_gpu_scope { TALLY_GPU_SCOPE_CONTEXT = 0 };

typedef struct tally_gpu_event_info {
	size_t size;
	tally_gpu_event_t id;
	char name[TALLY_GPU_NAME_LEN];        /* full metric name */
	char short_desc[TALLY_GPU_NAME_LEN];
	char long_desc[TALLY_GPU_DESC_LEN];   /* description, unit, category, variants */
	char unit[64];                        /* "byte", "instruction", "percent", "" */
	char domain[64];                      /* hardware unit */
	int domain_index;
	int category;                         /* enum tally_gpu_category */
	int scope;                            /* enum tally_gpu_scope */
	int num_variants;                     /* rollups/submetrics of the base metric */
} tally_gpu_event_info_t;

/* Name -> id; PAPI_ENOEVNT (with the reason) for an unknown name. */
PAPI_EXPORT int tally_gpu_event_id(int device, const char *name, tally_gpu_event_t *id);
PAPI_EXPORT int tally_gpu_event_info(int device, tally_gpu_event_t id, tally_gpu_event_info_t *info);
/* The k-th variant (0 <= k < num_variants) of an event's base metric. */
PAPI_EXPORT int tally_gpu_event_variant(int device, tally_gpu_event_t id, int k, tally_gpu_event_t *out);

/* ---- Groups ---------------------------------------------------------------
 * A group belongs to a CUDA context (CUcontext passed as void *; NULL means
 * the calling thread's current context, else device 0's primary context)
 * and holds metrics that one pass can collect. */
typedef struct tally_gpu_group *tally_gpu_group_t;

enum tally_gpu_group_attr {
	TALLY_GPU_GROUP_ATTR_DOMAIN = 0,      /* int: domain of the first event (-1 if empty) */
	TALLY_GPU_GROUP_ATTR_NUM_EVENTS,      /* int */
	TALLY_GPU_GROUP_ATTR_EVENTS,          /* tally_gpu_event_t[num_events] */
	TALLY_GPU_GROUP_ATTR_INSTANCE_COUNT,  /* int: instance count of the domain */
	TALLY_GPU_GROUP_ATTR_PASSES,          /* int: passes the group needs (1, or more for a lone metric that alone spans several) */
	TALLY_GPU_GROUP_ATTR_ENABLED,         /* int */
};

PAPI_EXPORT int tally_gpu_group_create(void *cu_context, tally_gpu_group_t *group);
/* PAPI_EISRUN when enabled. */
PAPI_EXPORT int tally_gpu_group_destroy(tally_gpu_group_t group);
/* PAPI_EISRUN when enabled, PAPI_ENOEVNT unknown id, PAPI_ECOUNT full,
 * PAPI_ECNFLCT when the group would need a second pass. */
PAPI_EXPORT int tally_gpu_group_add_event(tally_gpu_group_t group, tally_gpu_event_t id);
PAPI_EXPORT int tally_gpu_group_remove_event(tally_gpu_group_t group, tally_gpu_event_t id);
PAPI_EXPORT int tally_gpu_group_remove_all(tally_gpu_group_t group);
/* Start collecting on the group's context (PAPI_ECNFLCT when another
 * group, set or PAPI event set already profiles that context). */
PAPI_EXPORT int tally_gpu_group_enable(tally_gpu_group_t group);
PAPI_EXPORT int tally_gpu_group_disable(tally_gpu_group_t group);
/* Values since the last read/reset; the event read is reset to zero
 * (legacy semantics).  Counters are summed over kernels (kernel mode) or
 * cover the window (continuous mode); ratios and throughputs are the
 * value of the latest window.  PAPI_ENOTRUN when the group is disabled. */
PAPI_EXPORT int tally_gpu_group_read_event(tally_gpu_group_t group, tally_gpu_event_t id, double *value);
/* values[num_events] and ids[num_events] (ids may be NULL); *n in:
 * capacity, out: number of events. */
PAPI_EXPORT int tally_gpu_group_read_all(tally_gpu_group_t group, double *values,
					 tally_gpu_event_t *ids, int *n);
PAPI_EXPORT int tally_gpu_group_reset(tally_gpu_group_t group);
PAPI_EXPORT int tally_gpu_group_get_attr(tally_gpu_group_t group, int attr, void *value, size_t *size);

/* Kernel collection mode only: values of each kernel since the last
 * read/reset, in launch order, with no ceiling on the kernels (a full
 * counter data image is harvested at the next launch).  *n in: capacity
 * of values rows; out: kernels seen; when more than the capacity, the
 * first capacity rows are returned and the others stay for the next
 * read.  names: n * name_len bytes (demangled names) or NULL; values:
 * n * num_events doubles. */
PAPI_EXPORT int tally_gpu_group_read_kernels(tally_gpu_group_t group, char *names, size_t name_len,
					     double *values, int *n);
/* As tally_gpu_group_read_kernels, with whole names: names[r] (r < the
 * rows returned) is a malloc'ed copy the caller frees, or NULL when out of
 * memory; names may be NULL. */
PAPI_EXPORT int tally_gpu_group_read_kernel_names(tally_gpu_group_t group, char **names, double *values,
						  int *n);

/* ---- Group sets ------------------------------------------------------------
 * For a list of events, the passes needed and the groups of each pass.
 * num_sets equals the Profiler Host API's GetNumOfPasses for the whole
 * list (host_passes); the groups are a packing of the events into
 * one-pass groups. */
typedef struct tally_gpu_group_set {
	int num_groups;
	tally_gpu_group_t *groups;
} tally_gpu_group_set_t;

typedef struct tally_gpu_group_sets {
	size_t size;
	int num_sets;
	tally_gpu_group_set_t *sets;
	int host_passes;        /* GetNumOfPasses of the config image of all events */
} tally_gpu_group_sets_t;

PAPI_EXPORT int tally_gpu_group_sets_create(void *cu_context, const tally_gpu_event_t *ids, int n,
					    tally_gpu_group_sets_t **sets);
PAPI_EXPORT int tally_gpu_group_sets_destroy(tally_gpu_group_sets_t *sets);
/* The packing group sets use, without a context (works on a host-only
 * device from tally_gpu_open_chip): group_of[i] (n ints) = the one-pass
 * group of event i, *ngroups groups, *host_passes = GetNumOfPasses of the
 * whole list.  A group of one event that alone needs several passes is a
 * group of its own. */
PAPI_EXPORT int tally_gpu_pack_passes(int device, const tally_gpu_event_t *ids, int n, int *group_of,
				      int *ngroups, int *host_passes);
/* Enable/disable the groups of one set (one pass; the application repeats
 * its work once per set). */
PAPI_EXPORT int tally_gpu_group_set_enable(tally_gpu_group_set_t *set);
PAPI_EXPORT int tally_gpu_group_set_disable(tally_gpu_group_set_t *set);
/* Kernel replay mode: enable every set at once; each kernel is replayed
 * once per pass and all groups fill in one run.  PAPI_EMULPASS when the
 * context is not in kernel replay mode and more than one pass is needed. */
PAPI_EXPORT int tally_gpu_group_sets_enable_all(tally_gpu_group_sets_t *sets);
PAPI_EXPORT int tally_gpu_group_sets_disable_all(tally_gpu_group_sets_t *sets);

/* Start retaining `device`'s primary context (the one GPU metrics are
 * collected on when no context is current) on a thread of Tally's own and
 * return at once, so that its creation (about 0.12 s on an H100) overlaps
 * CUPTI's profiler initialisation (about 0.09 s) instead of following it.
 * For a caller that will collect on that device anyway; the context is
 * released with the others at PAPI_shutdown.  One warm-up per process:
 * PAPI_OK (also when one was started already), PAPI_EINVAL for a bad device, PAPI_ESYS when no thread can be
 * made.  Failures of the retain itself surface at the context's first use. */
PAPI_EXPORT int tally_gpu_context_warm(int device);

/* ---- Replay and collection modes -------------------------------------- */
PAPI_EXPORT int tally_gpu_kernel_replay_enable(void *cu_context);
PAPI_EXPORT int tally_gpu_kernel_replay_disable(void *cu_context);
/* Called after each kernel launched under kernel replay with the kernel's
 * demangled name and the replays done (the passes of the config). */
typedef void (*tally_gpu_replay_update_fn)(const char *kernel_name, int replays_done, void *userdata);
PAPI_EXPORT int tally_gpu_kernel_replay_subscribe_update(tally_gpu_replay_update_fn fn, void *userdata);

enum tally_gpu_collection_mode {
	TALLY_GPU_COLLECTION_CONTINUOUS = 0,  /* default for groups, as in the legacy API */
	TALLY_GPU_COLLECTION_KERNEL = 1,
	/* named ranges (UserRange, kernels not serialised): a range per span
	 * between tally_gpu_range_mark calls, one pass only; a group's rows
	 * (tally_gpu_group_read_kernel_names) are the ranges, by mark name */
	TALLY_GPU_COLLECTION_RANGES = 2,
};
/* Mode for groups enabled later on the context (kernel replay implies
 * kernel mode). */
PAPI_EXPORT int tally_gpu_set_collection_mode(void *cu_context, int mode);
/* Ranges mode: end the current range of every running ranges-mode session
 * (all contexts) and start one named `name` (copied).  A session whose
 * counter data image is full is harvested and re-armed first.  PAPI_OK
 * when no session runs. */
PAPI_EXPORT int tally_gpu_range_mark(const char *name);

/* Application replay across processes (CUPTI user replay): sessions
 * enabled later on the context (tally_gpu_group_sets_enable_all of a
 * multi-pass list, or a group) run pass `pass` of their config, one range
 * per kernel.  The counter data image is restored from image_path, written
 * there by the run of pass - 1 (checked: same config, same image size,
 * that pass), and saved back when the session is disabled.  Only the run
 * of the last pass has values (per kernel, as in kernel mode); earlier
 * runs read no kernels.  Each run must launch the same kernels in the
 * same order.  pass -1 turns it off. */
PAPI_EXPORT int tally_gpu_user_replay_pass(void *cu_context, int pass, const char *image_path);

/* ---- Kernel attribution ------------------------------------------------------
 * Tally subscribes to CUPTI's callback API for kernel launches (driver API
 * cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel, so runtime
 * launches are seen once).  A hook installed here is called at launch
 * enter and exit.  At enter its return value is stored in CUPTI's
 * correlationData and handed back at exit as `tag` (the measurement
 * runtime stores its region and rank there). */
typedef struct tally_gpu_launch {
	size_t size;
	int phase;                  /* 0 enter, 1 exit */
	const char *name;           /* demangled kernel name */
	const char *mangled;        /* CUPTI symbolName */
	uint32_t correlation_id;    /* same for cudaLaunchKernel and its cuLaunchKernel */
	uint32_t context_uid;
	int device;
	unsigned long thread;       /* pthread id of the launching thread */
	uint64_t tag;               /* exit: what the hook returned at enter */
	void *context;              /* the launch's CUcontext (current on the launching thread) */
} tally_gpu_launch_t;

typedef uint64_t (*tally_gpu_launch_hook_fn)(const tally_gpu_launch_t *launch, void *userdata);
/* Install (fn != NULL) or remove the hook.  PAPI_ECNFLCT with the other
 * subscriber's name when another CUPTI tool holds the subscription. */
PAPI_EXPORT int tally_gpu_set_launch_hook(tally_gpu_launch_hook_fn fn, void *userdata);
/* Why GPU attribution is off ("" when on). */
PAPI_EXPORT const char *tally_gpu_subscriber_status(void);
/* 1 when Tally holds CUPTI's single subscription (taken only when a GPU
 * feature needs it: kernel replay names, PC sampling, the launch hook),
 * else 0. */
PAPI_EXPORT int tally_gpu_subscribed(void);

/* ---- PC sampling --------------------------------------------------------
 * CUPTI's PC Sampling API (cupti_pcsampling.h) per CUDA context: every
 * 2^period cycles each SM samples one warp's PC and the reason it is not
 * issuing (stall reason).  Tally aggregates samples per (cubin CRC,
 * function, PC offset, correlation id) with a count per stall reason, and
 * maps PCs to file:line for code built with -lineinfo (cubins with line
 * information are captured from the module-load callback, so enable
 * sampling before the context's first launch: with lazy module loading
 * that is the first launch of each module; cubins without it are not
 * copied, and their PCs have no source line).
 *
 * Modes: continuous (default; kernels run concurrently, correlation_id is
 * 0) and kernel-serialized (each kernel runs alone; correlation_id is the
 * launch's CUPTI correlationId, as in tally_gpu_launch_t).  Data is drained
 * from CUPTI at stop, flush, disable, module unload, context teardown,
 * process exit and, when drain_ms > 0, periodically by a thread; dropped
 * samples and hardware-buffer-full events are counted in the stats, never
 * hidden.  Records survive disable and context teardown until
 * tally_gpu_pcsampling_reset.  The `ctx` arguments are CUcontext values;
 * NULL means the calling thread's current context (else device 0's
 * primary context).  Errors: PAPI_ENOSUPP (no GPU/CUPTI/PC sampling),
 * PAPI_EINVAL (bad setting, with a detail), PAPI_EISRUN (already enabled),
 * PAPI_ENOTRUN (not enabled), PAPI_ECNFLCT (CUPTI refused, e.g. another
 * process samples the GPU), PAPI_EPERM (insufficient privileges). */
#define TALLY_GPU_PCSAMP_CONTINUOUS 1
#define TALLY_GPU_PCSAMP_SERIALIZED 2
#define TALLY_GPU_PCSAMP_MAX_STALLS 128

typedef struct tally_gpu_pcsampling_config {
	size_t size;              /* sizeof(tally_gpu_pcsampling_config_t) */
	int mode;                 /* TALLY_GPU_PCSAMP_*; 0: continuous */
	int period;               /* log2 of the period in cycles, 5..31; 0: CUPTI's default */
	const char *stalls;       /* comma-separated stall reasons to collect: full CUPTI
				     names or the part after "..._stalled_"; NULL/"": all */
	size_t scratch_bytes;     /* CUPTI scratch buffer; 0: CUPTI default (1 MiB) */
	size_t hw_bytes;          /* hardware buffer; 0: CUPTI default (512 MiB) */
	int start_paused;         /* 1: enable without sampling until tally_gpu_pcsampling_start */
	size_t max_pcs;           /* PC records per drain buffer; 0: 4096 */
	unsigned drain_ms;        /* periodic drain by a thread; 0: none */
	unsigned worker_sleep_ms; /* CUPTI worker thread sleep; 0: CUPTI default (100 ms) */
} tally_gpu_pcsampling_config_t;

/* Fill cfg from TALLY_PCSAMP_PERIOD, _MODE (continuous|serialized),
 * _STALLS, _SCRATCH, _HWBUF, _START (0: paused), _MAX_PCS, _DRAIN_MS
 * (defaults as above); PAPI_EINVAL with the offending setting. */
PAPI_EXPORT int tally_gpu_pcsampling_config_from_env(tally_gpu_pcsampling_config_t *cfg);
/* Enable sampling on ctx (cfg NULL: from the environment).  Enabling a
 * context again after disable replaces its records. */
PAPI_EXPORT int tally_gpu_pcsampling_enable(void *ctx, const tally_gpu_pcsampling_config_t *cfg);
/* Resume / pause sampling (stop drains what the range collected). */
PAPI_EXPORT int tally_gpu_pcsampling_start(void *ctx);
PAPI_EXPORT int tally_gpu_pcsampling_stop(void *ctx);
/* Drain what CUPTI holds now (does not synchronise the device). */
PAPI_EXPORT int tally_gpu_pcsampling_flush(void *ctx);
/* Stop, drain and disable; the records stay readable. */
PAPI_EXPORT int tally_gpu_pcsampling_disable(void *ctx);
/* Forget the records of ctx (disabling first if needed). */
PAPI_EXPORT int tally_gpu_pcsampling_reset(void *ctx);

/* Stall reasons of the session, as cuptiPCSamplingGetStallReasons names
 * them ("smsp__pcsamp_warps_issue_stalled_long_scoreboard"); index i is
 * the index into tally_gpu_pc_sample_t.stall. */
PAPI_EXPORT int tally_gpu_pcsampling_num_stall_reasons(void *ctx, int *n);
PAPI_EXPORT int tally_gpu_pcsampling_stall_reason(void *ctx, int i, char *name, size_t len, uint32_t *cupti_index);

typedef struct tally_gpu_pcsampling_stats {
	size_t size;              /* sizeof(tally_gpu_pcsampling_stats_t) */
	int enabled, running, mode, period;
	uint64_t total_samples;   /* CUPTI totalSamples summed over drains (incl. dropped, non-user) */
	uint64_t dropped_samples; /* dropped by the hardware (backpressure/overflow) */
	uint64_t nonuser_samples; /* in kernels without PC records (non-user) */
	uint64_t record_samples;  /* samples in the records (selected stall reasons) */
	uint64_t hw_buffer_full;  /* drains that reported the hardware buffer full */
	uint64_t drains;          /* buffers consumed */
	uint64_t num_records;     /* distinct (crc, function, pc, correlation id) */
	uint64_t cubins;          /* cubins with line information captured (process-wide) */
	uint64_t lost_records;    /* records CUPTI could not place (remaining after drains) */
	int device;               /* CUDA device of the session's context */
} tally_gpu_pcsampling_stats_t;
PAPI_EXPORT int tally_gpu_pcsampling_get_stats(void *ctx, tally_gpu_pcsampling_stats_t *st);

typedef struct tally_gpu_pc_sample {
	size_t size;              /* sizeof(tally_gpu_pc_sample_t) */
	uint64_t cubin_crc;       /* cuptiGetCubinCrc of the module */
	uint64_t pc_offset;       /* PC offset within the function */
	uint32_t function_index;
	uint32_t correlation_id;  /* serialized mode: the launch; 0 in continuous mode */
	const char *function;     /* mangled function name */
	const char *kernel;       /* demangled: the launched kernel (serialized) or the function */
	const char *file;         /* "dir/file" of the source line; NULL when unknown */
	uint32_t line;            /* 0 when unknown (no -lineinfo, cubin not captured) */
	uint64_t samples;         /* sum of stall[] over the reasons that are not
				     "..._not_issued" variants: those count the subset of
				     their base reason's samples where no warp issued */
	int num_stalls;
	const uint64_t *stall;    /* samples per stall reason (session's reason index) */
} tally_gpu_pc_sample_t;
/* Called for each record; nonzero return stops the walk. */
typedef int (*tally_gpu_pc_sample_fn)(const tally_gpu_pc_sample_t *s, void *userdata);
/* Walk the records of ctx (resolving source lines on first read). */
PAPI_EXPORT int tally_gpu_pcsampling_read(void *ctx, tally_gpu_pc_sample_fn fn, void *userdata);

/* For the runtime: when TALLY_PCSAMP is on, enable sampling (settings from
 * the environment) on the current context, if any, and on every context
 * created afterwards.  CUPTI samples one context per GPU at a time: with
 * TALLY_PCSAMP_SHARE=one (default) the first process on a node to claim a
 * GPU samples it (an flock on $TMPDIR/tally-pcsamp-<PCI id>.lock holding its
 * pid) and the others skip it, saying in tally_gpu_pcsampling_auto_status
 * which pid samples; =all lets every process try.  Failures on a context
 * are recorded there too and never stop the program.  PAPI_OK (and nothing
 * done) when TALLY_PCSAMP is off; PAPI_EINVAL for a bad TALLY_PCSAMP_*
 * setting; PAPI_ENOSUPP without GPU/CUPTI (the caller logs and goes on). */
PAPI_EXPORT int tally_gpu_pcsampling_auto(void);
/* "" or the last failure of automatic sampling. */
PAPI_EXPORT const char *tally_gpu_pcsampling_auto_status(void);
/* The contexts with sampling sessions (records), up to *n; *n = count. */
PAPI_EXPORT int tally_gpu_pcsampling_contexts(void **ctxs, int *n);

#ifdef __cplusplus
}
#endif

#endif /* TALLY_GPU_H */
