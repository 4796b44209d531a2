/*
 * cuda_internal.h - what common/ offers the three parts of the cuda
 * component: component/ (the PAPI component, cuda::: events), groups/ (the
 * event-group API) and pcsamp/ (PC sampling), each with its own internal
 * header for what stays inside it.  common/ holds:
 *
 *   cuda_dl.c        loading libcuda/libcupti, status conversion
 *   cuda_discover.c  devices, chips, profiling support, component state
 *   cuda_metrics.c   per-chip metric catalog and its on-disk cache
 *   cuda_config.c    config images, pass counting, one-pass packing
 *   cuda_range.c     range profiler sessions (collectors)
 *   cuda_range_full.c kernel mode: a full image harvested at the next launch
 *   cuda_image.c     counter data images on disk (application replay)
 *   cuda_ctxreg.c    per-context settings (replay, mode, owner, launches)
 *   cuda_callbacks.c CUPTI subscriber: attribution, replay updates; it
 *                    calls the PC sampling hooks declared below
 *   cuda_cache.c     cache control for per-kernel metrics
 *   cuda_timing.c    TALLY_CUDA_TIMING phase times
 */
#ifndef TALLY_CUDA_INTERNAL_H
#define TALLY_CUDA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_dl.h"
#include "tally_gpu.h"

#define TLY_CU_MAX_DEV 32
#define TLY_CU_MAX_EV 64

/* ---- metric catalog (cuda_metrics.c) ---------------------------------- */
struct tly_cu_metric {
	char *name;      /* base metric */
	char *desc;
	char *hw;        /* hardware unit = domain */
	char *unit;
	int type;        /* CUpti_MetricType */
	int dom;         /* index into catalog dom[] */
	int nsub;
	char **sub;      /* ".sum", ".avg", ... */
};

struct tly_cu_catalog {
	char chip[64];
	int n;
	struct tly_cu_metric *m;   /* sorted by name */
	int ndom;
	char **dom;                /* sorted hardware unit names */
	int *dom_count;
	double seconds;
	int from_cache;
	char *text;                /* the cache file's bytes when read from it: the strings point into it */
};

/* The catalog of a chip (loaded once, then shared; NULL on failure). */
const struct tly_cu_catalog *tly_cu_catalog_get(const char *chip);
void tly_cu_catalog_free_all(void);
/* Full name -> (metric, variant); -1 when unknown. */
int tly_cu_catalog_find(const struct tly_cu_catalog *c, const char *full, int *metric, int *variant);
/* Default variant of a metric (.sum / .ratio / .avg.pct_of_peak_sustained_elapsed). */
int tly_cu_default_variant(const struct tly_cu_metric *m);
void tly_cu_full_name(const struct tly_cu_catalog *c, int metric, int variant, char *buf, size_t len);

/* Event ids (tally_gpu_event_t) and the cuda component's native tokens
 * share one layout: variant in bits 0..15 (1..nsub in ids; 0 = the default
 * in tokens), metric in bits 16..39, device in bits 40.. (tokens only).
 * Some metrics have more than 255 variants: an 8-bit field carried into
 * the metric and enumerations never ended (issue 38.1). */
#define TLY_CU_VAR_BITS 16
#define TLY_CU_VAR_MAX 0xffffu
#define TLY_CU_MET_MAX 0xffffffu
#define TLY_CU_DEV_SHIFT 40

static inline tally_gpu_event_t tly_cu_evid(int metric, int variant)
{
	return ((tally_gpu_event_t)(unsigned)metric << TLY_CU_VAR_BITS) | ((tally_gpu_event_t)variant & TLY_CU_VAR_MAX);
}

static inline int tly_cu_evid_metric(tally_gpu_event_t id)
{
	return (int)((id >> TLY_CU_VAR_BITS) & TLY_CU_MET_MAX);
}

static inline int tly_cu_evid_variant(tally_gpu_event_t id)
{
	return (int)(id & TLY_CU_VAR_MAX);
}

/* The id's metric and variant when it names one of catalog c (nothing
 * above the metric field, 1 <= variant <= nsub): 0, else -1. */
static inline int tly_cu_evid_split(const struct tly_cu_catalog *c, tally_gpu_event_t id, int *metric,
				    int *variant)
{
	*metric = tly_cu_evid_metric(id);
	*variant = tly_cu_evid_variant(id);
	if (id >> TLY_CU_DEV_SHIFT || *metric >= c->n || *variant < 1 || *variant > c->m[*metric].nsub)
		return -1;
	return 0;
}

/* ---- config images (cuda_config.c) -------------------------------------- */
struct tly_cu_config {
	CUpti_Profiler_Host_Object *host;  /* kept for evaluation */
	uint8_t *image;
	size_t size;
	size_t passes;
};

int tly_cu_config_build(const char *chip, const uint8_t *avail, const char *const *names, int n,
			struct tly_cu_config *out);
void tly_cu_config_free(struct tly_cu_config *cfg);
/* Passes a list needs (0 with a detail on error).  Its config is kept as
 * the spare that tly_cu_config_build then hands to the same list. */
size_t tly_cu_config_passes(const char *chip, const uint8_t *avail, const char *const *names, int n);
/* Frees the spare (before CUPTI goes). */
void tly_cu_config_spare_drop(void);
/* Config images built from the host API so far (a spare handed on is not one). */
unsigned long tly_cu_config_built(void);
/* Pack names into one-pass groups in order: group_of[i] = group of name i. */
int tly_cu_config_pack(const char *chip, const uint8_t *avail, const char *const *names, int n,
		       int *group_of, int *ngroups, size_t *passes);

/* ---- devices (cuda_discover.c) ---------------------------------------------- */
struct tly_cu_device {
	CUdevice dev;
	int host_only;
	char name[TALLY_GPU_NAME_LEN];
	char chip[64];
	int cc_major, cc_minor, num_sms;
	int profiling_ok;
	char reason[TALLY_GPU_NAME_LEN];
	uint8_t *avail;            /* counter availability image (after first use) */
	const struct tly_cu_catalog *cat;
};

/* Discover once (thread-safe).  Returns PAPI_OK when at least the host
 * API works; *why explains a missing driver/GPU. */
int tly_cu_discover(const char **why);
int tly_cu_ndevices(void);          /* real devices */
int tly_cu_ndevices_all(void);      /* real + host-only */
/* Device record (NULL with a detail when out of range). */
struct tly_cu_device *tly_cu_device(int index);
int tly_cu_add_chip(const char *chip, int *index);
/* The catalog of a device, loaded on first use. */
const struct tly_cu_catalog *tly_cu_device_catalog(int index);
/* Counter availability for a device, fetched once with ctx (or read from
 * the disk cache, cuda_avail_cache.c). */
const uint8_t *tly_cu_device_avail(int index, CUcontext ctx);
/* cuda_avail_cache.c: the image kept on disk per GPU UUID, driver and
 * CUPTI version (NULL when there is none or TALLY_CUDA_NO_CACHE=1). */
uint8_t *tly_cu_avail_load(const struct tly_cu_device *d);
void tly_cu_avail_store(const struct tly_cu_device *d, const uint8_t *img, size_t n);
/* Same, through the device's context (current or primary); NULL for
 * host-only devices.  Pass counts depend on it. */
const uint8_t *tly_cu_device_avail_any(int index);
void tly_cu_discover_shutdown(void);
/* PAPI_OK when the public GPU API can work (a driver and a GPU), else the
 * error with its detail. */
int tly_cu_api_ready(void);

/* ---- contexts (cuda_ctxreg.c) ------------------------------------------------ */
/* Resolve NULL to the current context, else device 0's primary one. */
int tly_cu_ctx_resolve(void *in, CUcontext *ctx, int *device);
/* The context to use for device `dev` (current one if on dev, else the
 * retained primary context). */
int tly_cu_ctx_for_device(int dev, CUcontext *ctx);
/* Device `dev`'s primary context (handle d), retained once for Tally. */
int tly_cu_ctx_primary(const struct tly_cu_drv *drv, int dev, CUdevice d, CUcontext *ctx);
/* cuda_ctx_warm.c: wait for the background retain, if one was started. */
void tly_cu_ctx_warm_join(void);
/* Register what tly_cu_ctxreg_shutdown calls first (the retain's join). */
void tly_cu_ctxreg_on_shutdown(void (*join)(void));
int tly_cu_ctx_claim(CUcontext ctx, const void *owner);   /* PAPI_ECNFLCT if taken */
void tly_cu_ctx_release(CUcontext ctx, const void *owner);
int tly_cu_ctx_set_replay(CUcontext ctx, int on);
int tly_cu_ctx_replay(CUcontext ctx);
int tly_cu_ctx_set_mode(CUcontext ctx, int mode);
int tly_cu_ctx_mode(CUcontext ctx);
int tly_cu_any_replay(void);
/* Kernel launches on a context since the owner's last harvest (names). */
void tly_cu_ctx_note_launch(CUcontext ctx, const char *name, int *replay_passes);
/* The whole name of the i-th launch (malloc'ed), or NULL. */
char *tly_cu_ctx_launch_name(CUcontext ctx, size_t i);
void tly_cu_ctx_clear_launches(CUcontext ctx);
void tly_cu_ctx_set_passes(CUcontext ctx, int passes);
/* Application replay across processes: the pass the next session runs and
 * the file of its counter data image; -1 when off. */
int tly_cu_ctx_set_user_pass(CUcontext ctx, int pass, const char *image);
int tly_cu_ctx_user_pass(CUcontext ctx, char *image, size_t len);

/* ---- counter data images on disk (cuda_image.c) ------------------------------ */
/* Write/read the image of a session with config cfg after pass `pass`.
 * Reading checks the file was written for the same config and image size
 * and by pass `pass` (the previous run's). */
int tly_cu_image_save(const char *path, const struct tly_cu_config *cfg, int pass, const uint8_t *img,
		      size_t size);
int tly_cu_image_load(const char *path, const struct tly_cu_config *cfg, int pass, uint8_t *img, size_t size);
void tly_cu_ctxreg_shutdown(void);

/* ---- range profiler sessions (cuda_range.c) ------------------------------- */
/* Called for each range harvested: its index, name and n values. */
typedef void (*tly_cu_range_fn)(void *ud, size_t idx, const char *name, const double *vals);

struct tly_cu_coll {
	CUcontext ctx;
	int dev;
	int n;
	const char **names;
	int *is_counter;
	struct tly_cu_config cfg;
	CUpti_RangeProfiler_Object *obj;
	uint8_t *cdata;
	size_t cdata_size;
	size_t max_ranges;
	int kernel_mode;      /* AutoRange (else UserRange) */
	int named;            /* ranges mode: UserRanges named by tally_gpu_range_mark */
	char **rnames;        /* ... the names of the ranges pushed since the last harvest */
	size_t nr;
	char *cur;            /* ... the name of the open range */
	tly_cu_range_fn full_fn;   /* ... harvest of a full image */
	void *full_ud;
	int kernel_replay;    /* KernelReplay (else UserReplay) */
	int user_pass;        /* application replay: the pass this process runs, else -1 */
	char image[512];      /* ... and the counter data image file */
	int running;
	int flush;            /* TALLY_CUDA_CACHE=flush armed for this collection */
	size_t dropped;
	size_t launched;      /* kernel mode: launches since the image was armed */
	int refill;           /* ... harvested when full, from the launch callback */
	size_t refills;       /* ... how many times */
	int full_rc;          /* ... the error of one, reported by the next harvest */
	int own;              /* Tally's own kernel replay, a flush before each pass (cuda_replay_own.c) */
	int own_done;         /* ... every pass of the last kernel submitted (its Stop made) */
	int own_skip;         /* ... the last launch got no passes (a stream being captured) */
	struct tly_cu_ckpt *ckpt; /* ... the device memory at the kernel's launch */
	double *vals;         /* scratch: n values of one range */
};


/* kernel_mode: 0 one window, 1 a range per kernel, 2 named ranges
 * (TALLY_GPU_COLLECTION_RANGES; fn/ud harvest a full image). */
int tly_cu_coll_open(struct tly_cu_coll *c, CUcontext ctx, int dev, const char *const *names, int n,
		     int kernel_mode, int kernel_replay);
void tly_cu_coll_on_full(struct tly_cu_coll *c, tly_cu_range_fn fn, void *ud);
/* Stop, decode, evaluate every range; restart when `restart`. */
int tly_cu_coll_harvest(struct tly_cu_coll *c, int restart, tly_cu_range_fn fn, void *ud);
/* Harvest (without restart) and release everything. */
int tly_cu_coll_close(struct tly_cu_coll *c, tly_cu_range_fn fn, void *ud);
/* A harvest with tly_cu_range_lock held. */
int tly_cu_coll_harvest_locked(struct tly_cu_coll *c, int restart, tly_cu_range_fn fn, void *ud);

/* ---- Tally's own kernel replay (cuda_replay_own.c) ------------------------- */
/* Whether a kernel-mode list of n metrics needing `passes` passes is
 * replayed by Tally (flush before each pass) rather than by CUPTI; *why
 * says why not when a flush was asked for and it cannot be. */
int tly_cu_own_wanted(const char *const *names, int n, size_t passes, const char **why);
int tly_cu_own_open(struct tly_cu_coll *c);
void tly_cu_own_close(struct tly_cu_coll *c);
/* Launch entry (ctx current, launching thread, range lock held): the
 * device memory saved. */
void tly_cu_own_before(struct tly_cu_coll *c, CUstream stream);
/* Launch exit: the other passes, each after a restore and a flush. */
int tly_cu_own_after(struct tly_cu_coll *c, CUpti_CallbackId id, const void *params);
/* Whether any collection of the process replayed kernels itself. */
int tly_cu_own_used(void);
/* One launch at a time per context Tally replays (cuda_replay_serial.c):
 * the context added at the collection's open; enter at the launch entry
 * (before the range lock), leave at its exit (this thread's hold). */
void tly_cu_own_serial_add(CUcontext ctx);
void tly_cu_own_serial_enter(CUcontext ctx);
void tly_cu_own_serial_leave(void);

/* ---- kernel mode without a ceiling (cuda_range_full.c) --------------------- */
/* From the launch callback (entry), on the launching thread: a kernel-mode
 * session of ctx whose image is full is harvested (on_full) and re-armed. */
/* Whether a full image of c can be harvested at a launch (kernel mode,
 * not application replay, CUPTI's subscription: taken here). */
int tly_cu_coll_can_refill(const struct tly_cu_coll *c);
/* The lock of every session's range calls (lock 1, unlock 0): here, below
 * cuda_range.c, which takes it for marks and harvests. */
void tly_cu_range_lock(int on);
/* A harvest of a full image, registered by cuda_range.c (above this file):
 * tly_cu_coll_harvest_locked. */
typedef int (*tly_cu_harvest_fn)(struct tly_cu_coll *c, int restart, tly_cu_range_fn fn, void *ud);
/* Sessions it watches (those that can refill), each with the harvest it
 * calls when the image is full; remove before a session closes. */
void tly_cu_coll_kernel_add(struct tly_cu_coll *c, tly_cu_harvest_fn harvest);
void tly_cu_coll_kernel_remove(struct tly_cu_coll *c);
/* n kernels of c got no values: said once per process. */
void tly_cu_coll_say_dropped(const struct tly_cu_coll *c, size_t n);

/* ---- callbacks (cuda_callbacks.c) ---------------------------------------- */
/* Subscribe (once); PAPI_ECNFLCT with the other subscriber's name. */
int tly_cu_cb_init(void);
/* What the subscriber tells the parts above it (range_full.c, pcsamp/):
 * each registers its follower before it first asks for the subscription,
 * so cuda_callbacks.c calls nothing of theirs by name.  A slot may be
 * NULL; registering a follower again is a no-op; followers stay
 * registered (their state says whether there is anything to do). */
struct tly_cu_cb_follower {
	void (*before_launch)(CUcontext ctx, CUstream stream);
	void (*note_launch)(CUcontext ctx, uint32_t correlation_id, const char *name);
	void (*module_loaded)(CUcontext ctx, const void *cubin, size_t size);
	void (*module_unloading)(CUcontext ctx);
	void (*ctx_destroying)(CUcontext ctx);
	void (*ctx_created)(CUcontext ctx);
	/* the launch call returned (API exit), its parameters by callback id */
	void (*after_launch)(CUcontext ctx, CUpti_CallbackId id, const void *params);
};
void tly_cu_cb_follow(const struct tly_cu_cb_follower *f);
/* While on, this thread's launches are Tally's own (a replay pass): the
 * launch callback ignores them. */
void tly_cu_cb_quiet(int on);
/* The stream of a launch, from its parameters by callback id. */
CUstream tly_cu_launch_stream(CUpti_CallbackId id, const void *params);
/* cuda_avail_cache.c: where the caches live (no trailing slash). */
void tly_cu_cache_dir(char *buf, size_t len);
/* cuda_cache.c: TALLY_CUDA_CACHE (0 none, 1 flush; a malformed value is
 * said once and "none" used); arm/disarm the L2 flush of a context (ctx current) while a
 * per-kernel collection is open; the flush queued before a launch. */
int tly_cu_cache_mode(void);
int tly_cu_cache_arm(CUcontext ctx, int dev, int on);
void tly_cu_cache_before_launch(CUcontext ctx, CUstream stream);
void tly_cu_cache_ctx_gone(CUcontext ctx);
/* TALLY_CUPTI=app: Tally takes no CUPTI subscription (the application's
 * own CUPTI tool keeps it). */
int tly_cu_cupti_yields(void);
void tly_cu_cb_shutdown(void);
const char *tly_cu_cb_status(void);
/* Replay-update subscription target. */
void tly_cu_cb_replay_notify(const char *kernel, int passes);
/* The subscriber's callback as CUPTI calls it (bench_gpu_hook: the host
 * cost of a launch with made-up callback data, no GPU needed). */
void tly_cu_cb_dispatch(CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data);



/* ---- phase timing (cuda_timing.c) --------------------------------------------- */
/* 0 unless TALLY_CUDA_TIMING=1, else the time now; end prints the phase's
 * wall time on stderr (nothing when t0 is 0). */
double tly_cu_time_start(void);
void tly_cu_time_end(const char *phase, double t0);

#endif /* TALLY_CUDA_INTERNAL_H */
