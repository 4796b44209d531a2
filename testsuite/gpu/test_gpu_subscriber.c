/*
 * test_gpu_subscriber.c - coexistence with the application's own CUPTI
 * tool: PAPI_library_init takes no CUPTI subscription (the application's
 * tool subscribes after it), the cuda component stays enabled, and a GPU
 * feature that needs CUPTI's callbacks (the launch hook) then fails with
 * PAPI_ECNFLCT and names the conflict; the program carries on.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "tharness.h"
#include "papi.h"
#include "tally_gpu.h"
#include "gpu_present.h"

typedef int (*subscribe_fn)(void **sub, void *cb, void *ud);

static void noop(void *ud, int dom, unsigned id, const void *data)
{
	(void)ud; (void)dom; (void)id; (void)data;
}

static uint64_t hook(const tally_gpu_launch_t *l, void *ud)
{
	(void)l; (void)ud;
	return 0;
}

int main(void)
{
	void *h = dlopen("libcupti.so.13", RTLD_NOW);
	void *drv = dlopen("libcuda.so.1", RTLD_NOW);
	subscribe_fn sub_fn;
	void *sub = NULL;
	const PAPI_component_info_t *ci;
	char why[512] = "";
	int cidx;

	if (!h || !drv) {
		printf("SKIP: %s\n", !h ? "libcupti not found" : "no NVIDIA driver (libcuda.so.1)");
		return 77;
	}
	*(void **)&sub_fn = dlsym(h, "cuptiSubscribe");
	TH_CHECK(sub_fn != NULL);
	TH_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	cidx = PAPI_get_component_index("cuda");
	TH_CHECK(cidx >= 0);
	ci = PAPI_get_component_info(cidx);
	printf("cuda component: disabled=%d reason: %s\n", ci->disabled, ci->disabled_reason);
	if (gpu_present(why, sizeof why) == 0) {
		printf("SKIP: %s\n", why);
		return 77;
	}
	TH_EQ(ci->disabled, 0);
	TH_EQ(tally_gpu_subscribed(), 0);
	/* the application's tool subscribes after PAPI_library_init */
	TH_EQ(sub_fn(&sub, (void *)noop, NULL), 0);
	TH_EQ(tally_gpu_set_launch_hook(hook, NULL), PAPI_ECNFLCT);
	printf("launch hook: %s\n", tally_gpu_subscriber_status());
	TH_CHECK(strstr(tally_gpu_subscriber_status(), "subscriber") != NULL);
	TH_EQ(tally_gpu_subscribed(), 0);
	PAPI_shutdown();
	return th_done();
}
