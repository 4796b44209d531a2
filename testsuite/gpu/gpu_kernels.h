/* gpu_kernels.h - launchers of the test kernels (gpu_kernels.cu). */
#ifndef TALLY_TEST_GPU_KERNELS_H
#define TALLY_TEST_GPU_KERNELS_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/* Allocate buffers; <0 when there is no usable GPU. */
int tg_init(size_t work_threads, size_t copy_floats);
/* work<<<blocks, threads>>>: each thread does `iters` FFMAs. */
int tg_work(int blocks, int threads, int iters);
/* copy<<<1320, 256>>> over copy_floats floats. */
int tg_copy(void);
/* Mode read: a kernel that reads the copy input (sums per thread); mode
 * bump: adds 1 to it in place; tg_count_not: elements not equal to v. */
int tg_readsum(void);
int tg_bump(void);
long tg_count_not(float v);
int tg_sync(void);
/* Several GPUs: the devices visible; work<<<>>> on device dev (made
 * current; its output buffer allocated at its first use); the UUID of
 * device dev as nvidia-smi -L writes it. */
int tg_device_count(void);
int tg_work_on(int dev, int blocks, int threads, int iters);
int tg_uuid(int dev, char *buf, size_t len);
#ifdef __cplusplus
}
#endif
/* The workload of the GPU overhead targets (docs/gpu.md): 4,194,304 threads x 100 FMA iterations. */
#define TG_BLOCKS 16384
#define TG_THREADS 256
#define TG_ITERS 100
#define TG_COPY_FLOATS ((size_t)64 << 20)  /* 256 MiB, 5x the L2 */
/* The copy's size: TG_COPY_MIB (e.g. 32, less than the L2, for the cache
 * control test) or TG_COPY_FLOATS. */
#include <stdlib.h>
static inline size_t tg_copy_floats(void)
{
	const char *v = getenv("TG_COPY_MIB");
	long m = v ? atol(v) : 0;

	return m > 0 ? (size_t)m << 18 : TG_COPY_FLOATS;
}
#endif
