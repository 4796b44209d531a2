/*
 * rt_pcsamp.h - GPU PC sampling under the measurement runtime
 * (TALLY_PCSAMP; docs/gpu.md).  The runtime turns on automatic sampling
 * (tally_gpu_pcsampling_auto) once the GPU component is up; at the final
 * write every context is disabled (which drains it) and its records go to
 * the pc_samples table (gpu/pcsamp_rows.c).
 */
#ifndef TALLY_RT_PCSAMP_H
#define TALLY_RT_PCSAMP_H

#include <stdint.h>

#include "tally_gpu.h"

#define TLY_PCS_MAX_CTX 64

/* One sampled context after the harvest. */
struct tly_pcs_ctx {
	void *ctx;
	tally_gpu_pcsampling_stats_t st;
	int nreasons;
	char (*reason)[64];            /* short names (after "_stalled_") */
	uint8_t *not_issued;           /* [nreasons] */
};

/* 1 when TALLY_PCSAMP asked for sampling and it was turned on. */
int tly_pcs_rt_on(void);
/* Disable (drain) every sampled context, once, and describe them; returns
 * their number (0..TLY_PCS_MAX_CTX) and sets *ctxs to an array owned by
 * rt_pcsamp.c.  Not for signal or partial-file paths (drives CUPTI). */
int tly_pcs_rt_harvest(const struct tly_pcs_ctx **ctxs);
/* Why this process samples no GPU ("" when it samples, or off). */
const char *tly_pcs_rt_status(void);
/* The pid named by the status as the GPU's sampling process, else 0. */
long tly_pcs_rt_owner_pid(void);

#endif /* TALLY_RT_PCSAMP_H */
