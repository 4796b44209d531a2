/*
 * test_nvml_component.c - the nvml component against what the machine
 * has, asked of libnvidia-ml directly (dlopen, nvmlInit, device count):
 * where it cannot be loaded, the component is listed, disabled, with the
 * loader's own message as the reason, and its events are refused; where
 * it loads and sees GPUs, the component is enabled, every listed event
 * reads, energy grows over a sleep at a power between 1 W and the board's
 * limit, and NVML's own counter moved by as much.  TALLY_NVML_LIB, when
 * set, names the library for both sides (tests run it with a missing
 * path and a library without NVML's symbols).  Needs no GPU.
 */
#include <dlfcn.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"
#include "tharness.h"

/* The truth: 1 when the library loads, has NVML, and sees a GPU. */
static int nvml_truth(char *why, size_t len, void **hp)
{
	const char *env = getenv("TALLY_NVML_LIB");
	const char *lib = env && *env ? env : "libnvidia-ml.so.1";
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	int (*init)(void) = NULL, (*count)(unsigned *) = NULL;
	unsigned n = 0;

	if (!h) {
		snprintf(why, len, "%s", dlerror());
		return 0;
	}
	*(void **)&init = dlsym(h, "nvmlInit_v2");
	*(void **)&count = dlsym(h, "nvmlDeviceGetCount_v2");
	if (!init || !count) {
		snprintf(why, len, "symbol nvmlInit_v2 missing");
		return 0;
	}
	*hp = h;
	if (init() != 0 || count(&n) != 0 || n == 0) {
		snprintf(why, len, "NVML");
		return 0;
	}
	return 1;
}

static void check_disabled(int cidx, const char *why)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
	int code = 0, es = PAPI_NULL;

	TH_CHECK(ci && ci->disabled != 0);
	if (ci) {
		printf("nvml disabled: %s\n", ci->disabled_reason);
		TH_CHECK(strstr(ci->disabled_reason, why) != NULL);
	}
	TH_CHECK(PAPI_event_name_to_code("nvml:::energy:device=0", &code) != PAPI_OK);
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_CHECK(PAPI_add_named_event(es, "nvml:::energy:device=0") != PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
}

/* Every event the component lists reads on its own. */
static int check_listed(int cidx)
{
	int code = 0 | PAPI_NATIVE_MASK, n = 0, has_energy = 0;

	TH_EQ(PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx), PAPI_OK);
	do {
		char name[PAPI_MAX_STR_LEN];
		long long v = -1;
		int es = PAPI_NULL;

		TH_EQ(PAPI_event_code_to_name(code, name), PAPI_OK);
		TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
		TH_EQ(PAPI_add_event(es, code), PAPI_OK);
		TH_EQ(PAPI_start(es), PAPI_OK);
		TH_EQ(PAPI_stop(es, &v), PAPI_OK);
		TH_CHECK(v >= 0);
		printf("%-40s %lld\n", name, v);
		has_energy |= strcmp(name, "nvml:::energy:device=0") == 0;
		PAPI_cleanup_eventset(es);
		PAPI_destroy_eventset(&es);
		n++;
	} while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
	TH_CHECK(n >= 5);
	return has_energy;
}

/* Energy over a 2 s sleep against NVML's own counter and power limit. */
static void check_energy(void *h)
{
	int (*handle)(unsigned, void **) = NULL, (*energy)(void *, unsigned long long *) = NULL;
	void *dev = NULL;
	unsigned long long e0 = 0, e1 = 0;
	long long v[2] = { 0, 0 };
	int es = PAPI_NULL;

	*(void **)&handle = dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
	*(void **)&energy = dlsym(h, "nvmlDeviceGetTotalEnergyConsumption");
	TH_CHECK(handle && energy && handle(0, &dev) == 0);
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es, "nvml:::energy:device=0"), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es, "nvml:::power_limit:device=0"), PAPI_OK);
	TH_EQ(energy(dev, &e0), 0);
	TH_EQ(PAPI_start(es), PAPI_OK);
	sleep(2);
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	TH_EQ(energy(dev, &e1), 0);
	printf("energy over 2 s: %lld mJ (NVML counter moved %llu mJ), power limit %lld mW\n", v[0], e1 - e0,
	       v[1]);
	TH_CHECK(v[0] > 2 * 1000);                  /* above 1 W */
	TH_CHECK(v[0] <= (long long)(e1 - e0));     /* inside NVML's own window */
	TH_CHECK(v[1] > 0 && v[0] < 3 * v[1]);      /* below the limit over <3 s */
}

int main(void)
{
	char why[512] = "";
	void *h = NULL;
	int truth = nvml_truth(why, sizeof why, &h), cidx;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init failed");
	cidx = PAPI_get_component_index("nvml");
	TH_CHECK(cidx >= 0);
	if (cidx < 0)
		return th_done();
	printf("libnvidia-ml here: %s\n", truth ? "loads and sees a GPU" : why);
	if (!truth) {
		check_disabled(cidx, why);
		return th_done();
	}
	TH_EQ(PAPI_get_component_info(cidx)->disabled, 0);
	if (check_listed(cidx))
		check_energy(h);
	else
		TH_CHECK(!"GPU 0 lists no energy event");
	return th_done();
}
