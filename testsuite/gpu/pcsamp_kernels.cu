// pcsamp_kernels.cu - kernels with one known hot loop each.  The lines
// between the PCS_*_BEGIN and PCS_*_END markers are the hot loops; CMake
// passes their line numbers to the test.
#include <cuda_runtime.h>
#include <stdlib.h>
#include "pcsamp_kernels.h"

static __device__ void note_cycles(long long t0, long long *cycles)
{
	__syncthreads();
	if (threadIdx.x == 0)
		cycles[blockIdx.x] = clock64() - t0;
}

// Macro expansions keep the line of their use.
#define FMA4(a, b, c) a = fmaf(a, b, c); a = fmaf(a, b, c); a = fmaf(a, b, c); a = fmaf(a, b, c)
#define FMA16(a, b, c) FMA4(a, b, c); FMA4(a, b, c); FMA4(a, b, c); FMA4(a, b, c)

__global__ void pcs_fma(float *out, int iters, float b, float c, long long *cycles)
{
	long long t0 = clock64();
	float a = (float)threadIdx.x;
#pragma unroll 1
	for (int i = 0; i < iters; i++) { // PCS_FMA_BEGIN
		// 16 dependent FMAs, one source line: the loop's hottest line
		FMA16(a, b, c);
	} // PCS_FMA_END
	out[blockIdx.x * blockDim.x + threadIdx.x] = a;
	note_cycles(t0, cycles);
}

__global__ void pcs_chase(const unsigned *next, unsigned n, unsigned *out, int steps, long long *cycles)
{
	long long t0 = clock64();
	unsigned j = (unsigned)(((blockIdx.x * blockDim.x + threadIdx.x) * 4099ull) % n);
#pragma unroll 1
	for (int i = 0; i < steps; i++) // PCS_CHASE_BEGIN
		j = next[j]; // PCS_CHASE_END
	out[blockIdx.x * blockDim.x + threadIdx.x] = j;
	note_cycles(t0, cycles);
}

static float *g_out;
static unsigned *g_next, *g_cout;
static long long *g_cyc;
static int g_sms;
static unsigned g_words;

extern "C" int pk_num_sms(void)
{
	return g_sms;
}

// Sattolo's shuffle: one cycle through every word.
extern "C" int pk_init(uint32_t words)
{
	int n = 0;
	unsigned *h;
	uint64_t x = 88172645463325252ull;

	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0)
		return -1;
	if (cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess)
		return -1;
	g_words = words;
	h = (unsigned *)malloc(words * sizeof *h);
	if (!h)
		return -2;
	for (uint32_t i = 0; i < words; i++)
		h[i] = i;
	for (uint32_t i = words - 1; i > 0; i--) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint32_t k = (uint32_t)(x % i), t = h[i];
		h[i] = h[k], h[k] = t;
	}
	if (cudaMalloc(&g_out, 1024 * 128 * sizeof(float)) != cudaSuccess ||
	    cudaMalloc(&g_cout, 1024 * 128 * sizeof(unsigned)) != cudaSuccess ||
	    cudaMalloc(&g_cyc, 1024 * sizeof(long long)) != cudaSuccess ||
	    cudaMalloc(&g_next, words * sizeof *h) != cudaSuccess ||
	    cudaMemcpy(g_next, h, words * sizeof *h, cudaMemcpyHostToDevice) != cudaSuccess) {
		free(h);
		return -2;
	}
	free(h);
	return cudaDeviceSynchronize() == cudaSuccess ? 0 : -3;
}

static int64_t cycles(int64_t *sum)
{
	long long h[1024];
	int64_t mx = 0;

	if (cudaDeviceSynchronize() != cudaSuccess ||
	    cudaMemcpy(h, g_cyc, g_sms * sizeof h[0], cudaMemcpyDeviceToHost) != cudaSuccess)
		return -1;
	*sum = 0;
	for (int i = 0; i < g_sms; i++) {
		*sum += h[i];
		mx = h[i] > mx ? h[i] : mx;
	}
	return mx;
}

extern "C" int64_t pk_fma(int iters, int64_t *sum)
{
	pcs_fma<<<g_sms, 128>>>(g_out, iters, 1.0001f, 0.5f, g_cyc);
	return cudaGetLastError() == cudaSuccess ? cycles(sum) : -1;
}

extern "C" int64_t pk_chase(int steps, int64_t *sum)
{
	pcs_chase<<<g_sms, 128>>>(g_next, g_words, g_cout, steps, g_cyc);
	return cudaGetLastError() == cudaSuccess ? cycles(sum) : -1;
}

extern "C" int pk_fma_async(int iters)
{
	pcs_fma<<<g_sms, 128>>>(g_out, iters, 1.0001f, 0.5f, g_cyc);
	return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

extern "C" int pk_sync(void)
{
	return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
}
