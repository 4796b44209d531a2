/*
 * cuda_discover.c - GPUs, their chips and whether they can be profiled.
 *
 * Discovery creates no CUDA context: chip names come from CUPTI, and the
 * counter availability image (which needs a context) is fetched the first
 * time a context is profiled.
 */
#include "cuda_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "services/err_detail.h"

static struct {
	pthread_mutex_t lock;
	int done;
	int rc;
	char why[512];
	const struct tly_cu_libs *libs;
	int ndev;          /* real devices */
	int nall;          /* real + host-only */
	struct tly_cu_device dev[TLY_CU_MAX_DEV];
} discovery = { .lock = PTHREAD_MUTEX_INITIALIZER };

static const char *level_name(CUpti_Profiler_Support_Level l)
{
	switch (l) {
	case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
	case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled by the system";
	case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
	default: return "unknown";
	}
}

/* Say why CUPTI refuses a device (vGPU, MIG, confidential computing...). */
static void check_support(struct tly_cu_device *d)
{
	CUpti_Profiler_DeviceSupported_Params p = { .structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE };
	CUptiResult r;

	p.cuDevice = d->dev;
	p.api = CUPTI_PROFILER_RANGE_PROFILING;
	r = discovery.libs->pti->cuptiProfilerDeviceSupported(&p);
	if (r != CUPTI_SUCCESS) {
		snprintf(d->reason, sizeof d->reason, "cuptiProfilerDeviceSupported: %s", tly_cu_pti_str(r));
		return;
	}
	if (p.isSupported == CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
		d->profiling_ok = 1;
		return;
	}
	snprintf(d->reason, sizeof d->reason,
		 "profiling not supported: architecture %s, SLI %s, vGPU %s, confidential computing %s, "
		 "CMP %s, WSL %s", level_name(p.architecture), level_name(p.sli), level_name(p.vGpu),
		 level_name(p.confidentialCompute), level_name(p.cmp), level_name(p.wsl));
}

static void probe_device(int i)
{
	const struct tly_cu_drv *drv = discovery.libs->drv;
	struct tly_cu_device *d = &discovery.dev[i];
	CUpti_Device_GetChipName_Params cp = { .structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE };
	CUptiResult r;

	drv->cuDeviceGet(&d->dev, i);
	drv->cuDeviceGetName(d->name, sizeof d->name, d->dev);
	drv->cuDeviceGetAttribute(&d->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d->dev);
	drv->cuDeviceGetAttribute(&d->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d->dev);
	drv->cuDeviceGetAttribute(&d->num_sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d->dev);
	cp.deviceIndex = (size_t)i;
	r = discovery.libs->pti->cuptiDeviceGetChipName(&cp);
	if (r != CUPTI_SUCCESS) {
		snprintf(d->reason, sizeof d->reason, "cuptiDeviceGetChipName: %s", tly_cu_pti_str(r));
		return;
	}
	snprintf(d->chip, sizeof d->chip, "%s", cp.pChipName);
	check_support(d);
}

/* Driver, devices and the CUPTI profiler; the host API alone is enough
 * for enumeration, so a missing driver is reported, not fatal. */
static void discover_locked(void)
{
	const struct tly_cu_drv *drv;
	CUpti_Profiler_Initialize_Params ip = { .structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE };
	CUresult cr;
	CUptiResult r;
	int n = 0;

	double t = tly_cu_time_start();

	discovery.libs = tly_cu_load();
	tly_cu_time_end("dlopen libcuda+libcupti", t);
	if (!discovery.libs->pti) {
		discovery.rc = PAPI_ENOSUPP;
		/* TALLY_CUPTI_LIB helps only where a driver is: without one the
		 * reason already says so, and the advice would send a user on a
		 * machine without a GPU looking for a library */
		snprintf(discovery.why, sizeof discovery.why, "libcupti not loadable: %s%s",
			 discovery.libs->pti_error, discovery.libs->drv ? " (set TALLY_CUPTI_LIB)" : "");
		return;
	}
	drv = discovery.libs->drv;
	if (!drv) {
		snprintf(discovery.why, sizeof discovery.why, "no NVIDIA driver: %s", discovery.libs->drv_error);
		return;
	}
	t = tly_cu_time_start();
	cr = drv->cuInit(0);
	tly_cu_time_end("cuInit", t);
	if (cr == CUDA_SUCCESS)
		cr = drv->cuDeviceGetCount(&n);
	if (cr != CUDA_SUCCESS || n == 0) {
		const char *s = NULL;

		drv->cuGetErrorName(cr, &s);
		snprintf(discovery.why, sizeof discovery.why, "no usable GPU: cuInit/cuDeviceGetCount: %s",
			 cr == CUDA_SUCCESS ? "0 devices" : s ? s : "error");
		return;
	}
	t = tly_cu_time_start();
	r = discovery.libs->pti->cuptiProfilerInitialize(&ip);
	tly_cu_time_end("cuptiProfilerInitialize", t);
	if (r != CUPTI_SUCCESS) {
		snprintf(discovery.why, sizeof discovery.why, "cuptiProfilerInitialize: %s", tly_cu_pti_str(r));
		return;
	}
	discovery.ndev = n > TLY_CU_MAX_DEV ? TLY_CU_MAX_DEV : n;
	t = tly_cu_time_start();
	for (int i = 0; i < discovery.ndev; i++)
		probe_device(i);
	tly_cu_time_end("probe devices (counter availability)", t);
}

int tly_cu_discover(const char **why)
{
	pthread_mutex_lock(&discovery.lock);
	if (!discovery.done) {
		discovery.why[0] = '\0';
		discovery.rc = PAPI_OK;
		discover_locked();
		discovery.nall = discovery.ndev;
		discovery.done = 1;
	}
	pthread_mutex_unlock(&discovery.lock);
	if (why)
		*why = discovery.why;
	return discovery.rc;
}

int tly_cu_ndevices(void)
{
	return discovery.ndev;
}

int tly_cu_ndevices_all(void)
{
	return discovery.nall;
}

struct tly_cu_device *tly_cu_device(int index)
{
	if (tly_cu_discover(NULL) != PAPI_OK) {
		tly_err_set(PAPI_ENOSUPP, "GPU support unavailable: %s", discovery.why);
		return NULL;
	}
	if (index < 0 || index >= discovery.nall) {
		tly_err_set(PAPI_EINVAL, "no GPU device %d (%d devices%s%s)", index, discovery.nall,
			    discovery.why[0] ? "; " : "", discovery.why);
		return NULL;
	}
	return &discovery.dev[index];
}

int tly_cu_add_chip(const char *chip, int *index)
{
	int rc = tly_cu_discover(NULL);

	if (rc != PAPI_OK)
		return tly_err_set(rc, "GPU support unavailable: %s", discovery.why);
	if (!chip || !*chip || !index)
		return tly_err_set(PAPI_EINVAL, "tally_gpu_open_chip: chip name and index required");
	if (!tly_cu_catalog_get(chip))
		return PAPI_ENOSUPP;
	pthread_mutex_lock(&discovery.lock);
	for (int i = discovery.ndev; i < discovery.nall; i++)
		if (strcmp(discovery.dev[i].chip, chip) == 0)
			*index = i;
	if (discovery.nall < TLY_CU_MAX_DEV) {
		struct tly_cu_device *d = &discovery.dev[discovery.nall];

		memset(d, 0, sizeof *d);
		d->host_only = 1;
		snprintf(d->chip, sizeof d->chip, "%s", chip);
		snprintf(d->name, sizeof d->name, "%s (host only)", chip);
		snprintf(d->reason, sizeof d->reason, "host-only device: enumeration and pass counting only");
		*index = discovery.nall++;
		rc = PAPI_OK;
	} else {
		rc = tly_err_set(PAPI_ENOMEM, "too many GPU devices");
	}
	pthread_mutex_unlock(&discovery.lock);
	return rc;
}

const struct tly_cu_catalog *tly_cu_device_catalog(int index)
{
	struct tly_cu_device *d = tly_cu_device(index);

	if (!d)
		return NULL;
	if (!d->chip[0]) {
		tly_err_set(PAPI_ENOSUPP, "GPU %d: chip unknown: %s", index, d->reason);
		return NULL;
	}
	if (!d->cat) {
		double t = tly_cu_time_start();

		d->cat = tly_cu_catalog_get(d->chip);
		tly_cu_time_end("metric catalog", t);
	}
	return d->cat;
}

const uint8_t *tly_cu_device_avail(int index, CUcontext ctx)
{
	struct tly_cu_device *d = tly_cu_device(index);
	CUpti_Profiler_GetCounterAvailability_Params p = {
		.structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE };

	if (!d || d->host_only)
		return NULL;
	pthread_mutex_lock(&discovery.lock);
	if (!d->avail)
		d->avail = tly_cu_avail_load(d);
	p.ctx = ctx;
	if (!d->avail && ctx && discovery.libs->pti->cuptiProfilerGetCounterAvailability(&p) == CUPTI_SUCCESS) {
		uint8_t *img = calloc(1, p.counterAvailabilityImageSize);
		double t = tly_cu_time_start();

		p.pCounterAvailabilityImage = img;
		if (img && discovery.libs->pti->cuptiProfilerGetCounterAvailability(&p) == CUPTI_SUCCESS) {
			d->avail = img;
			tly_cu_avail_store(d, img, p.counterAvailabilityImageSize);
		} else {
			free(img);
		}
		tly_cu_time_end("counter availability (from the GPU)", t);
	}
	pthread_mutex_unlock(&discovery.lock);
	return d->avail;
}

void tly_cu_discover_shutdown(void)
{
	pthread_mutex_lock(&discovery.lock);
	for (int i = 0; i < discovery.nall; i++) {
		free(discovery.dev[i].avail);
		memset(&discovery.dev[i], 0, sizeof discovery.dev[i]);
	}
	discovery.done = 0;
	discovery.ndev = discovery.nall = 0;
	pthread_mutex_unlock(&discovery.lock);
}

/* PAPI_OK when the public GPU API can work (a driver and a GPU). */
int tly_cu_api_ready(void)
{
	const char *why = "";
	int rc = tly_cu_discover(&why);

	if (rc != PAPI_OK)
		return tly_err_set(rc, "GPU support unavailable: %s", why);
	if (!tly_cu_libs()->drv || tly_cu_ndevices() == 0)
		return tly_err_set(PAPI_ENOSUPP, "GPU support unavailable: %s", why);
	return PAPI_OK;
}
