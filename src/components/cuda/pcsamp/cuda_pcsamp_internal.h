/*
 * cuda_pcsamp_internal.h - interfaces between the files of PC sampling
 * (components/cuda/pcsamp/).  The rest of the component sees only the
 * hooks declared in common/cuda_internal.h.
 *
 *   cuda_pcsamp_registry.c  the sessions of every context, their lock
 *   cuda_pcsamp_setup.c     enabling a session: stall reasons, configuration
 *   cuda_pcsamp_control.c   start, stop (and drain), disable
 *   cuda_pcsamp_drain.c     the drain thread and the exit hook
 *   cuda_pcsamp_api.c       tally_gpu_pcsampling_* entry points
 *   cuda_pcsamp_hooks.c     what the CUPTI subscriber tells PC sampling
 *   cuda_pcsamp_data.c      buffers, draining, records
 *   cuda_pcsamp_src.c       cubins, CRCs, source lines, launch names
 *   cuda_pcsamp_elf.c       whether a cubin has line information
 *   cuda_pcsamp_env.c       TALLY_PCSAMP_* settings
 *   cuda_pcsamp_auto.c      automatic sampling (TALLY_PCSAMP=1)
 *   cuda_pcsamp_share.c     one sampling process per GPU
 */
#ifndef TALLY_CUDA_PCSAMP_INTERNAL_H
#define TALLY_CUDA_PCSAMP_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "components/cuda/common/cuda_internal.h"

/* ---- the CUPTI subscriber's follower (cuda_pcsamp_hooks.c) -------------- */
/* Register it (before asking for the subscription); the hooks it holds. */
void tly_pcs_follow(void);
int tly_cu_pcs_wants_cubins(void);
void tly_cu_pcs_module_loaded(CUcontext ctx, const void *cubin, size_t size);
void tly_cu_pcs_module_unloading(CUcontext ctx);
void tly_cu_pcs_ctx_destroying(CUcontext ctx);
void tly_cu_pcs_note_launch(CUcontext ctx, uint32_t correlation_id, const char *name);
/* cuda_pcsamp_auto.c: a new context is sampled when TALLY_PCSAMP asks. */
void tly_cu_pcs_ctx_created(CUcontext ctx);
/* cuda_pcsamp_env.c: a yes/no setting (PAPI_EINVAL with the parser's
 * sentence when malformed); the sentence for a CHOICE setting's bad word. */
int tly_pcs_env_bool(int id, int *out);
int tly_pcs_env_word_error(int id);

/* ---- sessions (cuda_pcsamp_registry.c) ----------------------------------- */
/* One per context that PC sampling was enabled on. */
struct tly_pcs_sess {
	CUcontext ctx;
	int enabled, running, period, device;
	tally_gpu_pcsampling_config_t cfg;
	size_t nall;                  /* stall reasons of the device */
	char (*names)[CUPTI_STALL_REASON_STRING_SIZE];
	uint32_t *idx;
	size_t nsel;                  /* selected ones */
	uint32_t *sel;                /* positions in names[] */
	uint32_t *sel_idx;            /* their CUPTI indexes */
	uint8_t *counted;             /* not a "_not_issued" subset */
	struct tly_pcs_data *data;
	struct tly_pcs_sess *next;
};

/* Every session, guarded by one lock; CUPTI is called under it. */
struct tly_pcs_registry {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct tly_pcs_sess *head;
	int want_cubins, serialized, exit_hook;
	int drain_on, drain_stop;
	unsigned drain_ms;
	pthread_t drain_thr;
};
extern struct tly_pcs_registry tly_pcs_reg;

void tly_pcs_lock(void);
void tly_pcs_unlock(void);
/* Does this thread hold the lock?  CUPTI may call back inside a call made
 * under it (Enable, Disable): the hooks then act without locking. */
int tly_pcs_held(void);
/* CUPTI's PC sampling functions (loaded: sessions exist only then). */
const struct tly_cu_pcs_fns *tly_pcs_fns(void);
struct tly_pcs_sess *tly_pcs_find_locked(CUcontext ctx);
void tly_pcs_sess_free(struct tly_pcs_sess *s);
/* The session of ctx (NULL: current context), returned locked; NULL with
 * *rc set (and not locked) when there is none. */
struct tly_pcs_sess *tly_pcs_lock_sess(void *ctx_in, int *rc);

/* ---- enabling (cuda_pcsamp_setup.c) --------------------------------------- */
int tly_pcs_check_cfg(const tally_gpu_pcsampling_config_t *c);
/* Enable, read the stall reasons, configure, start unless paused. */
int tly_pcs_open_locked(struct tly_pcs_sess *s);

/* ---- control (cuda_pcsamp_control.c, cuda_pcsamp_drain.c) ----------------- */
int tly_pcs_start_ctx(CUcontext ctx);
int tly_pcs_stop_locked(struct tly_pcs_sess *s);
int tly_pcs_disable_locked(struct tly_pcs_sess *s);
/* The exit hook (once) and the drain thread (when c asks for one). */
void tly_pcs_hooks_locked(const tally_gpu_pcsampling_config_t *c);

/* Records (cuda_pcsamp_data.c): buffers sized for nstall reasons;
 * counted[i]: reason i adds to a record's samples (the "_not_issued"
 * variants are subsets of their base reason and do not). */
struct tly_pcs_data;
struct tly_pcs_data *tly_pcs_data_new(size_t max_pcs, size_t nstall, const uint32_t *cupti_index,
				      const uint8_t *counted);
void tly_pcs_data_free(struct tly_pcs_data *d);
/* The buffer CUPTI fills at stop/disable (SAMPLING_DATA_BUFFER). */
CUpti_PCSamplingData *tly_pcs_data_cfgbuf(struct tly_pcs_data *d);
/* Consume the configured buffer, then GetData until nothing remains. */
int tly_pcs_data_drain(struct tly_pcs_data *d, CUcontext ctx);
/* Consume the configured buffer only (after disable). */
void tly_pcs_data_take_cfgbuf(struct tly_pcs_data *d);
void tly_pcs_data_stats(const struct tly_pcs_data *d, tally_gpu_pcsampling_stats_t *st);
int tly_pcs_data_walk(struct tly_pcs_data *d, tally_gpu_pc_sample_fn fn, void *ud,
		      const char *(*kernel_of)(void *, uint32_t), void *kud);

/* Cubins and launches (cuda_pcsamp_src.c). */
/* Keep a copy of a loaded cubin that has line information; 1 when kept
 * (or kept already), 0 when it has none. */
int tly_pcs_cubin_add(const void *cubin, size_t size);
size_t tly_pcs_cubin_count(void);
/* file ("dir/file", malloc'ed) and line of a PC; 0 when found, -1 (*file
 * NULL) when not. */
int tly_pcs_source(uint64_t crc, const char *func, uint64_t pc, char **file, uint32_t *line);
void tly_pcs_cubins_free(void);
/* 1: the ELF64 image has a .debug_line section; 0: it has none; -1: not
 * an ELF64 image this code can read (cuda_pcsamp_elf.c). */
int tly_pcs_cubin_has_lines(const void *cubin, size_t size);
/* One sampling process per GPU (cuda_pcsamp_share.c).  Claim GPU `key`:
 * 0 when this process holds it (or cannot coordinate), -1 when process
 * *owner does, -2 when the lock file belongs to user id *owner. */
int tly_pcs_gpu_claim(const char *key, long *owner);
/* A node-unique name of ctx's GPU (PCI domain-bus-device). */
int tly_pcs_gpu_key(CUcontext ctx, char *key, size_t len);
/* Launches seen while a serialized session runs: correlation id -> name. */
void tly_pcs_launch_add(uint32_t correlation_id, const char *name);
const char *tly_pcs_launch_name(uint32_t correlation_id);

#endif /* TALLY_CUDA_PCSAMP_INTERNAL_H */
