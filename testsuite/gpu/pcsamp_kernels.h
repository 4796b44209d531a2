/* pcsamp_kernels.h - kernels with one known hot loop each (pcsamp_kernels.cu,
 * built with -lineinfo) for the PC sampling test. */
#ifndef TALLY_TEST_PCSAMP_KERNELS_H
#define TALLY_TEST_PCSAMP_KERNELS_H
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Allocate buffers (chase over `chase_words` 4-byte words); <0: no GPU. */
int pk_init(uint32_t chase_words);
int pk_num_sms(void);
/* One block per SM, one warp per SM sub-partition (4 warps a block).
 * Each returns the SM cycles of the slowest block (clock64) and the sum
 * over blocks in *sum_cycles; <0 on error. */
/* Dependent FMA chain: 16 FMAs per iteration, each waiting on the last. */
int64_t pk_fma(int iters, int64_t *sum_cycles);
/* Dependent loads through a random cycle much larger than the L2. */
int64_t pk_chase(int steps, int64_t *sum_cycles);
/* The launch without waiting (kernel-serialized test). */
int pk_fma_async(int iters);
int pk_sync(void);
#ifdef __cplusplus
}
#endif
#endif
