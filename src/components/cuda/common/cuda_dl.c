/*
 * cuda_dl.c - loading libcuda and libcupti, and converting their status
 * codes.  The only file of the component that calls dlopen: everything
 * else goes through the function tables.
 */
#include "cuda_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "services/dl_table.h"
#include "services/err_detail.h"
#include "tally_shared.h"

/* Set by src/CMakeLists.txt from the CUDA toolkit of the build. */
#ifndef TALLY_CUPTI_SONAME
#define TALLY_CUPTI_SONAME "libcupti.so.13"
#endif
#ifndef TALLY_CUPTI_DIR
#define TALLY_CUPTI_DIR "/usr/local/cuda/lib64"
#endif

#define DRV(n) TLY_DL_SYM(struct tly_cu_drv, n)
#define PTI(n) TLY_DL_SYM(struct tly_cu_pti, n)

static const struct tly_dl_sym drv_syms[] = {
	DRV(cuInit), DRV(cuDriverGetVersion), DRV(cuDeviceGetCount), DRV(cuDeviceGet),
	DRV(cuDeviceGetName), DRV(cuDeviceGetAttribute), DRV(cuDeviceGetUuid), DRV(cuDevicePrimaryCtxRetain),
	DRV(cuDevicePrimaryCtxRelease), DRV(cuCtxGetCurrent), DRV(cuCtxPushCurrent),
	DRV(cuCtxPopCurrent), DRV(cuCtxGetDevice), DRV(cuCtxSynchronize), DRV(cuGetErrorName),
	DRV(cuMemAlloc), DRV(cuMemsetD8Async), DRV(cuStreamIsCapturing),
	DRV(cuLaunchKernel), DRV(cuLaunchKernelEx), DRV(cuLaunchCooperativeKernel),
};

static const struct tly_dl_sym pti_syms[] = {
	PTI(cuptiGetVersion), PTI(cuptiGetResultString), PTI(cuptiSubscribe_v2),
	PTI(cuptiUnsubscribe), PTI(cuptiEnableCallback), PTI(cuptiProfilerInitialize),
	PTI(cuptiProfilerDeInitialize), PTI(cuptiDeviceGetChipName),
	PTI(cuptiProfilerDeviceSupported), PTI(cuptiProfilerGetCounterAvailability),
	PTI(cuptiProfilerHostInitialize), PTI(cuptiProfilerHostDeinitialize),
	PTI(cuptiProfilerHostGetBaseMetrics), PTI(cuptiProfilerHostGetSubMetrics),
	PTI(cuptiProfilerHostGetMetricProperties), PTI(cuptiProfilerHostConfigAddMetrics),
	PTI(cuptiProfilerHostGetConfigImageSize), PTI(cuptiProfilerHostGetConfigImage),
	PTI(cuptiProfilerHostGetNumOfPasses), PTI(cuptiProfilerHostEvaluateToGpuValues),
	PTI(cuptiProfilerHostGetMaxNumHardwareMetricsPerPass), PTI(cuptiRangeProfilerEnable),
	PTI(cuptiRangeProfilerDisable), PTI(cuptiRangeProfilerSetConfig),
	PTI(cuptiRangeProfilerStart), PTI(cuptiRangeProfilerStop),
	PTI(cuptiRangeProfilerPushRange), PTI(cuptiRangeProfilerPopRange),
	PTI(cuptiRangeProfilerDecodeData), PTI(cuptiRangeProfilerGetCounterDataSize),
	PTI(cuptiRangeProfilerCounterDataImageInitialize),
	PTI(cuptiRangeProfilerGetCounterDataInfo),
	PTI(cuptiRangeProfilerCounterDataGetRangeInfo),
};

#define PCS(n) TLY_DL_SYM(struct tly_cu_pcs_fns, n)

static const struct tly_dl_sym pcs_syms[] = {
	PCS(cuptiPCSamplingEnable), PCS(cuptiPCSamplingDisable), PCS(cuptiPCSamplingStart),
	PCS(cuptiPCSamplingStop), PCS(cuptiPCSamplingGetData),
	PCS(cuptiPCSamplingSetConfigurationAttribute), PCS(cuptiPCSamplingGetConfigurationAttribute),
	PCS(cuptiPCSamplingGetNumStallReasons), PCS(cuptiPCSamplingGetStallReasons),
	PCS(cuptiGetCubinCrc), PCS(cuptiGetSassToSourceCorrelation),
};

#define ACT(n) TLY_DL_SYM(struct tly_cu_act_fns, n)

static const struct tly_dl_sym act_syms[] = {
	ACT(cuptiActivityEnable), ACT(cuptiActivityDisable), ACT(cuptiActivityRegisterCallbacks),
	ACT(cuptiActivityFlushAll), ACT(cuptiActivityGetNextRecord), ACT(cuptiActivityGetNumDroppedRecords),
	ACT(cuptiGetTimestamp),
};

#define CKP(n) TLY_DL_SYM(struct tly_cu_ckpt_fns, n)

static const struct tly_dl_sym ckpt_syms[] = {
	CKP(cuptiCheckpointSave), CKP(cuptiCheckpointRestore), CKP(cuptiCheckpointFree),
};

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* The subsystem's state: handles, tables, and what went wrong. */
static struct {
	pthread_mutex_t lock;
	int loaded;
	void *h_drv, *h_pti, *h_cxx;
	struct tly_cu_drv drv;
	struct tly_cu_pti pti;
	struct tly_cu_libs libs;
	struct tly_cu_pcs_fns pcs;
	const struct tly_cu_pcs_fns *pcs_ok;  /* &pcs when every symbol resolved */
	char pcs_error[256];
	struct tly_cu_act_fns act;
	const struct tly_cu_act_fns *act_ok;  /* &act when every symbol resolved */
	char act_error[256];
	struct tly_cu_ckpt_fns ckpt;
	const struct tly_cu_ckpt_fns *ckpt_ok; /* &ckpt when every symbol resolved */
	int ckpt_tried;
	char ckpt_error[256];
	demangle_fn demangle;
} loader = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void load_driver(void)
{
	static const char *const names[] = { "libcuda.so.1", "libcuda.so", NULL };

	loader.h_drv = tly_dl_open_first(names, loader.libs.drv_error, sizeof loader.libs.drv_error);
	if (!loader.h_drv)
		return;
	if (tly_dl_resolve(loader.h_drv, "libcuda", drv_syms, sizeof drv_syms / sizeof drv_syms[0], &loader.drv,
			   loader.libs.drv_error, sizeof loader.libs.drv_error) == 0)
		loader.libs.drv = &loader.drv;
}

static void load_cupti(void)
{
	/* TALLY_CUPTI_LIB, then the soname of the CUDA major Tally was built
	 * with (the loader's search: LD_LIBRARY_PATH, Spack's
	 * setup_run_environment), then that toolkit's CUPTI directory as
	 * configured at build time (src/CMakeLists.txt), then any libcupti.so. */
	const char *env = tly_setting_raw(TLY_SET_cupti_lib);
	const char *const names[] = {
		env && *env ? env : TALLY_CUPTI_SONAME, TALLY_CUPTI_SONAME,
		TALLY_CUPTI_DIR "/" TALLY_CUPTI_SONAME, TALLY_CUPTI_DIR "/libcupti.so", "libcupti.so",
		"/usr/local/cuda/extras/CUPTI/lib64/" TALLY_CUPTI_SONAME,
		"/usr/local/cuda/lib64/" TALLY_CUPTI_SONAME, NULL
	};

	loader.h_pti = tly_dl_open_first(names, loader.libs.pti_error, sizeof loader.libs.pti_error);
	if (!loader.h_pti)
		return;
	if (tly_dl_resolve(loader.h_pti, "libcupti", pti_syms, sizeof pti_syms / sizeof pti_syms[0], &loader.pti,
			   loader.libs.pti_error, sizeof loader.libs.pti_error) == 0)
		loader.libs.pti = &loader.pti;
	loader.pcs_ok = NULL;
	if (tly_dl_resolve(loader.h_pti, "libcupti", pcs_syms, sizeof pcs_syms / sizeof pcs_syms[0], &loader.pcs,
			   loader.pcs_error, sizeof loader.pcs_error) == 0)
		loader.pcs_ok = &loader.pcs;
	loader.act_ok = NULL;
	if (tly_dl_resolve(loader.h_pti, "libcupti", act_syms, sizeof act_syms / sizeof act_syms[0], &loader.act,
			   loader.act_error, sizeof loader.act_error) == 0) {
		void *ts = dlsym(loader.h_pti, "cuptiActivityRegisterTimestampCallback");

		memcpy(&loader.act.cuptiActivityRegisterTimestampCallback, &ts, sizeof ts);
		loader.act_ok = &loader.act;
	}
}

/* C++ demangler: from the program when it links libstdc++ (CUDA programs
 * do), else from libstdc++.so.6 if present. */
static void load_demangler(void)
{
	void *p = dlsym(RTLD_DEFAULT, "__cxa_demangle");

	if (!p) {
		loader.h_cxx = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
		if (loader.h_cxx)
			p = dlsym(loader.h_cxx, "__cxa_demangle");
	}
	memcpy(&loader.demangle, &p, sizeof p);
}

/* The tables tly_cu_load fills (zeroed until it ran): every file of the
 * component reaches the libraries through this, below discovery. */
const struct tly_cu_libs *tly_cu_libs(void)
{
	return &loader.libs;
}

const struct tly_cu_libs *tly_cu_load(void)
{
	pthread_mutex_lock(&loader.lock);
	if (!loader.loaded) {
		memset(&loader.libs, 0, sizeof loader.libs);
		load_driver();
		/* Without a driver no GPU can be profiled: libcupti (4 MB, with
		 * thread-local storage) is loaded only when asked by name
		 * (TALLY_CUPTI_LIB: its host API, metric tables without a GPU).
		 * Loaded into every process of a machine without GPUs, its TLS
		 * made LeakSanitizer's tracer crash at the exit of
		 * test_hl_region's children (ASan stage, two CI runs). */
		const char *named = tly_setting_raw(TLY_SET_cupti_lib);

		if (loader.h_drv || (named && *named))
			load_cupti();
		else
			snprintf(loader.libs.pti_error, sizeof loader.libs.pti_error,
				 "no NVIDIA driver (libcuda.so.1) here, so libcupti is not loaded "
				 "(TALLY_CUPTI_LIB names it for the host API)");
		load_demangler();
		loader.loaded = 1;
	}
	pthread_mutex_unlock(&loader.lock);
	return &loader.libs;
}

const struct tly_cu_pcs_fns *tly_cu_pcs_fns(const char **why)
{
	const struct tly_cu_libs *l = tly_cu_load();

	if (why)
		*why = !l->pti ? l->pti_error : loader.pcs_ok ? "" : loader.pcs_error;
	return l->pti ? loader.pcs_ok : NULL;
}

const struct tly_cu_act_fns *tly_cu_act_fns(const char **why)
{
	const struct tly_cu_libs *l = tly_cu_load();

	if (why)
		*why = !l->pti ? l->pti_error : loader.act_ok ? "" : loader.act_error;
	return l->pti ? loader.act_ok : NULL;
}

/* libcheckpoint.so from libcupti's own directory (an absolute path: no
 * search path is asked), else the build's CUPTI directory. */
static void load_ckpt_locked(void)
{
	char dir[512] = TALLY_CUPTI_DIR, path[600], *slash;
	Dl_info di;
	void *sym = loader.libs.pti ? dlsym(loader.h_pti, "cuptiGetVersion") : NULL;

	if (sym && dladdr(sym, &di) && di.dli_fname && di.dli_fname[0] == '/' &&
	    snprintf(dir, sizeof dir, "%s", di.dli_fname) < (int)sizeof dir && (slash = strrchr(dir, '/')))
		*slash = '\0';
	snprintf(path, sizeof path, "%s/libcheckpoint.so", dir);
	const char *const names[] = { path, TALLY_CUPTI_DIR "/libcheckpoint.so", NULL };
	void *h = tly_dl_open_first(names, loader.ckpt_error, sizeof loader.ckpt_error);

	if (h && tly_dl_resolve(h, "libcheckpoint", ckpt_syms, sizeof ckpt_syms / sizeof ckpt_syms[0], &loader.ckpt,
				loader.ckpt_error, sizeof loader.ckpt_error) == 0)
		loader.ckpt_ok = &loader.ckpt;
}

const struct tly_cu_ckpt_fns *tly_cu_ckpt_fns(const char **why)
{
	const struct tly_cu_libs *l = tly_cu_load();

	pthread_mutex_lock(&loader.lock);
	if (!loader.ckpt_tried && l->pti) {
		loader.ckpt_tried = 1;
		load_ckpt_locked();
	}
	if (why)
		*why = !l->pti ? l->pti_error : loader.ckpt_ok ? "" : loader.ckpt_error;
	pthread_mutex_unlock(&loader.lock);
	return l->pti ? loader.ckpt_ok : NULL;
}

void tly_cu_unload(void)
{
	pthread_mutex_lock(&loader.lock);
	/* libcupti and libcuda keep threads and atexit handlers: unloading
	 * them is unsafe, so the handles stay open and only the table state
	 * is kept for the next load. */
	pthread_mutex_unlock(&loader.lock);
}

static const struct {
	CUptiResult r;
	int code;
} pti_codes[] = {
	{ CUPTI_SUCCESS, PAPI_OK },
	{ CUPTI_ERROR_INVALID_PARAMETER, PAPI_EINVAL },
	{ CUPTI_ERROR_INVALID_DEVICE, PAPI_ENOSUPP },
	{ CUPTI_ERROR_INVALID_CONTEXT, PAPI_EINVAL },
	{ CUPTI_ERROR_INVALID_OPERATION, PAPI_ECNFLCT },
	{ CUPTI_ERROR_OUT_OF_MEMORY, PAPI_ENOMEM },
	{ CUPTI_ERROR_NOT_READY, PAPI_ENOTRUN },
	{ CUPTI_ERROR_NOT_COMPATIBLE, PAPI_ECNFLCT },
	{ CUPTI_ERROR_NOT_INITIALIZED, PAPI_ENOINIT },
	{ CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, PAPI_EPERM },
	{ CUPTI_ERROR_NOT_SUPPORTED, PAPI_ENOSUPP },
	{ CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED, PAPI_ENOSUPP },
	{ CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, PAPI_ECNFLCT },
	{ CUPTI_ERROR_MAX_LIMIT_REACHED, PAPI_ECOUNT },
};

int tly_cu_pti_code(CUptiResult r)
{
	for (size_t i = 0; i < sizeof pti_codes / sizeof pti_codes[0]; i++)
		if (pti_codes[i].r == r)
			return pti_codes[i].code;
	return PAPI_ECMP;
}

const char *tly_cu_pti_str(CUptiResult r)
{
	static _Thread_local char buf[256];
	const char *s = NULL;

	if (loader.libs.pti)
		loader.pti.cuptiGetResultString(r, &s);
	snprintf(buf, sizeof buf, "%s (%d)", s ? s : "CUPTI error", (int)r);
	return buf;
}

int tly_cu_pti_err(CUptiResult r, const char *what)
{
	int code = tly_cu_pti_code(r);

	if (r == CUPTI_SUCCESS)
		return PAPI_OK;
	return tly_err_set(code, "%s: %s", what, tly_cu_pti_str(r));
}

int tly_cu_drv_err(CUresult r, const char *what)
{
	const char *s = NULL;

	if (r == CUDA_SUCCESS)
		return PAPI_OK;
	if (loader.libs.drv)
		loader.drv.cuGetErrorName(r, &s);
	if (r == CUDA_ERROR_NO_DEVICE || r == CUDA_ERROR_NOT_INITIALIZED)
		return tly_err_set(PAPI_ENOSUPP, "%s: %s (%d)", what, s ? s : "CUDA error", (int)r);
	return tly_err_set(PAPI_ECMP, "%s: %s (%d)", what, s ? s : "CUDA error", (int)r);
}

char *tly_cu_demangle_dup(const char *sym)
{
	char *out = NULL;
	int status = -1;

	if (!sym)
		return strdup("?");
	if (loader.demangle)
		out = loader.demangle(sym, NULL, NULL, &status);
	if (out && status == 0)
		return out;
	free(out);
	return strdup(sym);
}

void tly_cu_demangle(const char *sym, char *buf, size_t len)
{
	char *out = tly_cu_demangle_dup(sym);

	snprintf(buf, len, "%s", out ? out : "?");
	free(out);
}
