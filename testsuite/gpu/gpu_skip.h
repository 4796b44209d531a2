/* gpu_skip.h - common start of GPU tests: skip (77) with the reason when
 * there is no GPU or the cuda component is disabled. */
#ifndef TALLY_TEST_GPU_SKIP_H
#define TALLY_TEST_GPU_SKIP_H
#include <stdio.h>
#include "papi.h"
#include "gpu_kernels.h"

static inline int gpu_test_start(void)
{
	int cidx;
	const PAPI_component_info_t *ci;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
		printf("FAIL: PAPI_library_init\n");
		return 1;
	}
	cidx = PAPI_get_component_index("cuda");
	ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
	if (!ci || ci->disabled) {
		printf("SKIP: cuda component disabled: %s\n", ci ? ci->disabled_reason : "not built");
		return 77;
	}
	if (tg_init((size_t)TG_BLOCKS * TG_THREADS, tg_copy_floats()) != 0) {
		printf("SKIP: no usable GPU for the test kernels\n");
		return 77;
	}
	return 0;
}
#endif
