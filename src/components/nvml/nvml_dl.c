/*
 * nvml_dl.c - loading libnvidia-ml.  The only file of the nvml component
 * that calls dlopen: everything else goes through the function table.
 */
#include "nvml_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tally_shared.h"

#define NVML_SYM(n) { #n, offsetof(struct tly_nvml_fns, n) }

static const struct {
	const char *name;
	size_t off;
} syms[] = {
	NVML_SYM(nvmlInit_v2), NVML_SYM(nvmlShutdown), NVML_SYM(nvmlErrorString),
	NVML_SYM(nvmlDeviceGetCount_v2), NVML_SYM(nvmlDeviceGetHandleByIndex_v2),
	NVML_SYM(nvmlDeviceGetName), NVML_SYM(nvmlDeviceGetPowerUsage),
	NVML_SYM(nvmlDeviceGetTotalEnergyConsumption), NVML_SYM(nvmlDeviceGetEnforcedPowerLimit),
	NVML_SYM(nvmlDeviceGetTemperature), NVML_SYM(nvmlDeviceGetClockInfo),
	NVML_SYM(nvmlDeviceGetMemoryInfo), NVML_SYM(nvmlDeviceGetUtilizationRates),
	NVML_SYM(nvmlDeviceGetPcieThroughput),
};

/* The loader's state: loaded once, under the lock. */
static struct {
	pthread_mutex_t lock;
	int tried;
	void *h;
	struct tly_nvml_fns fns;
	const struct tly_nvml_fns *ok;
	char why[256];
} nl = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void load(void)
{
	const char *env = tly_setting_raw(TLY_SET_nvml_lib);
	const char *lib = env && *env ? env : "libnvidia-ml.so.1";

	nl.h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!nl.h) {
		snprintf(nl.why, sizeof nl.why, "%s", dlerror());
		return;
	}
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		void *p = dlsym(nl.h, syms[i].name);

		if (!p) {
			snprintf(nl.why, sizeof nl.why, "%s: symbol %s missing (driver too old?)", lib, syms[i].name);
			return;
		}
		memcpy((char *)&nl.fns + syms[i].off, &p, sizeof p);
	}
	nl.ok = &nl.fns;
}

const struct tly_nvml_fns *tly_nvml_load(char *why, size_t len)
{
	const struct tly_nvml_fns *f;

	pthread_mutex_lock(&nl.lock);
	if (!nl.tried) {
		load();
		nl.tried = 1;
	}
	f = nl.ok;
	if (!f && why)
		snprintf(why, len, "%s", nl.why);
	pthread_mutex_unlock(&nl.lock);
	return f;
}
