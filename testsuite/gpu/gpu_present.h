/* gpu_present.h - does this machine have an NVIDIA driver and a GPU?
 * Asked of the driver itself (libcuda), never of Tally: GPU tests skip
 * only when the answer is no. */
#ifndef TALLY_TEST_GPU_PRESENT_H
#define TALLY_TEST_GPU_PRESENT_H
#include <dlfcn.h>
#include <stdio.h>

#define GPU_CUDA_ERROR_NO_DEVICE 100 /* CUresult: the driver sees no GPU */

/* 1: the driver is installed and sees a GPU; 0: it is not, or sees no
 * GPU (why says which); -1: it is installed but broken (why says how). */
static inline int gpu_present(char *why, size_t len)
{
	int (*init)(unsigned) = NULL, (*count)(int *) = NULL, n = 0, rc;
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		snprintf(why, len, "no NVIDIA driver here (%s)", dlerror());
		return 0;
	}
	*(void **)&init = dlsym(h, "cuInit");
	*(void **)&count = dlsym(h, "cuDeviceGetCount");
	if (!init || !count) {
		snprintf(why, len, "libcuda.so.1 lacks cuInit/cuDeviceGetCount: not a CUDA driver");
		return 0;
	}
	rc = init(0);
	if (rc == GPU_CUDA_ERROR_NO_DEVICE || (rc == 0 && (count(&n) != 0 || n < 1))) {
		snprintf(why, len, "the NVIDIA driver sees no GPU (cuInit: CUresult %d)", rc);
		return 0;
	}
	if (rc != 0) {
		snprintf(why, len, "the NVIDIA driver is installed but cuInit fails (CUresult %d)", rc);
		return -1;
	}
	return 1;
}

/* A program whose GPU set-up failed: skip (77) when the driver sees no
 * GPU, else fail (1), saying which on stdout. */
static inline int gpu_setup_failed(const char *what)
{
	char why[256];
	int present = gpu_present(why, sizeof why);

	printf("%s: %s\n", present == 0 ? "SKIP" : "FAILED", present == 1 ? what : why);
	return present == 0 ? 77 : 1;
}

#endif
