/*
 * nvml_dl.c - loading libnvidia-ml (through services/dl_table.c).  The only
 * file of the nvml component that loads it: everything else goes through
 * the function table.
 */
#include "nvml_dl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "services/dl_table.h"
#include "tally_shared.h"

#define NVML_SYM(n) TLY_DL_SYM(struct tly_nvml_fns, n)

static const struct tly_dl_sym syms[] = {
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
} loader = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void load(void)
{
	const char *env = tly_setting_raw(TLY_SET_nvml_lib);
	const char *const names[] = { env && *env ? env : "libnvidia-ml.so.1", NULL };

	loader.h = tly_dl_open_first(names, loader.why, sizeof loader.why);
	if (loader.h && tly_dl_resolve(loader.h, names[0], syms, sizeof syms / sizeof syms[0], &loader.fns,
				       loader.why, sizeof loader.why) == 0)
		loader.ok = &loader.fns;
}

const struct tly_nvml_fns *tly_nvml_load(char *why, size_t len)
{
	const struct tly_nvml_fns *f;

	pthread_mutex_lock(&loader.lock);
	if (!loader.tried) {
		load();
		loader.tried = 1;
	}
	f = loader.ok;
	if (!f && why)
		snprintf(why, len, "%s", loader.why);
	pthread_mutex_unlock(&loader.lock);
	return f;
}
