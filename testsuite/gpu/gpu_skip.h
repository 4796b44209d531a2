/* gpu_skip.h - common start of GPU tests.  Skips (77) only when this
 * machine has no NVIDIA driver or no GPU, asked of the driver itself
 * (libcuda), not of Tally; a cuda component disabled for any other reason,
 * or test kernels that cannot run on a GPU that is there, fail. */
#ifndef TALLY_TEST_GPU_SKIP_H
#define TALLY_TEST_GPU_SKIP_H
#include <stdio.h>
#include "papi.h"
#include "gpu_kernels.h"
#include "gpu_present.h"

static inline int gpu_test_start(void)
{
	char why[512] = "";
	int cidx, gpu = gpu_present(why, sizeof why);
	const PAPI_component_info_t *ci;

	if (gpu == 0) {
		printf("SKIP: %s\n", why);
		return 77;
	}
	if (gpu < 0) {
		printf("FAIL: %s\n", why);
		return 1;
	}
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
		printf("FAIL: PAPI_library_init\n");
		return 1;
	}
	cidx = PAPI_get_component_index("cuda");
	ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
	if (!ci || ci->disabled) {
		printf("FAIL: a GPU is here but the cuda component is disabled: %s\n",
		       ci ? ci->disabled_reason : "not built");
		return 1;
	}
	if (tg_init((size_t)TG_BLOCKS * TG_THREADS, tg_copy_floats()) != 0) {
		printf("FAIL: a GPU is here but the test kernels cannot run on it\n");
		return 1;
	}
	return 0;
}
#endif
