// gpu_kernels.cu - test kernels with known work, and C launchers.
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include "gpu_kernels.h"

// Each thread runs `iters` dependent FMAs: iters FFMA thread instructions.
__global__ void work(float *out, int iters, float b, float c)
{
	float a = (float)threadIdx.x;
#pragma unroll 1
	for (int i = 0; i < iters; i++)
		a = fmaf(a, b, c);
	out[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

// Streams n floats from in to out.
__global__ void copy(const float *in, float *out, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (; i < n; i += stride)
		out[i] = in[i];
}

// Reads n floats, writes one sum per thread (issue 50: a kernel that only
// reads finds its data in the L2 in a later replay pass).
__global__ void readsum(const float *in, float *out, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	float s = 0;

	for (size_t k = i; k < n; k += stride)
		s += in[k];
	out[i] = s;
}

// Adds 1 to each of n floats in place: replaying it without restoring the
// memory would add once per pass.
__global__ void bump(float *in, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (; i < n; i += stride)
		in[i] += 1.0f;
}

static float *g_out, *g_in, *g_cpy;
static size_t g_n;

extern "C" int tg_init(size_t work_threads, size_t copy_floats)
{
	int n = 0;

	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0)
		return -1;
	g_n = copy_floats;
	if (cudaMalloc(&g_out, work_threads * sizeof(float)) != cudaSuccess ||
	    cudaMalloc(&g_in, g_n * sizeof(float)) != cudaSuccess ||
	    cudaMalloc(&g_cpy, g_n * sizeof(float)) != cudaSuccess)
		return -2;
	cudaMemset(g_in, 0, g_n * sizeof(float));
	return cudaDeviceSynchronize() == cudaSuccess ? 0 : -3;
}

extern "C" int tg_work(int blocks, int threads, int iters)
{
	work<<<blocks, threads>>>(g_out, iters, 1.0001f, 0.5f);
	return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

extern "C" int tg_copy(void)
{
	copy<<<1320, 256>>>(g_in, g_cpy, g_n);
	return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

extern "C" int tg_readsum(void)
{
	readsum<<<1320, 256>>>(g_in, g_cpy, g_n);
	return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

extern "C" int tg_bump(void)
{
	bump<<<1320, 256>>>(g_in, g_n);
	return cudaGetLastError() == cudaSuccess ? 0 : -1;
}

// Elements of the copy input not equal to v (-1 on error).
extern "C" long tg_count_not(float v)
{
	float *h = (float *)malloc(g_n * sizeof(float));
	long bad = 0;

	if (!h || cudaMemcpy(h, g_in, g_n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) {
		free(h);
		return -1;
	}
	for (size_t i = 0; i < g_n; i++)
		bad += h[i] != v;
	free(h);
	return bad;
}

extern "C" int tg_sync(void)
{
	return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
}


// ---- several GPUs (test_rt_multi.c) ------------------------------------
#define TG_MAX_DEV 16
static float *g_out_dev[TG_MAX_DEV];

extern "C" int tg_device_count(void)
{
	int n = 0;

	return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

extern "C" int tg_work_on(int dev, int blocks, int threads, int iters)
{
	if (dev < 0 || dev >= TG_MAX_DEV || cudaSetDevice(dev) != cudaSuccess)
		return -1;
	if (!g_out_dev[dev] && cudaMalloc(&g_out_dev[dev], (size_t)blocks * threads * sizeof(float)) != cudaSuccess)
		return -2;
	work<<<blocks, threads>>>(g_out_dev[dev], iters, 1.0001f, 0.5f);
	return cudaGetLastError() == cudaSuccess ? 0 : -3;
}

extern "C" int tg_uuid(int dev, char *buf, size_t len)
{
	cudaDeviceProp p;
	const unsigned char *b;

	if (cudaGetDeviceProperties(&p, dev) != cudaSuccess)
		return -1;
	b = (const unsigned char *)p.uuid.bytes;
	snprintf(buf, len, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
	return 0;
}
