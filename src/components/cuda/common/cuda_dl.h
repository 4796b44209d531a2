/*
 * cuda_dl.h - the CUDA driver and CUPTI entry points the cuda component
 * uses, loaded at run time (cuda_dl.c is the only file that dlopens), and
 * the one place where CUDA/CUPTI status codes become PAPI codes.
 */
#ifndef TALLY_CUDA_DL_H
#define TALLY_CUDA_DL_H

#include <cuda.h>
#include <cupti.h>
#include <cupti_target.h>
#include <cupti_profiler_target.h>
#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>
#include <cupti_pcsampling.h>

#define TLY_CU_FN(n) __typeof__(&n) n

/* Driver entry points (NULL members when libcuda is absent). */
struct tly_cu_drv {
	TLY_CU_FN(cuInit);
	TLY_CU_FN(cuDriverGetVersion);
	TLY_CU_FN(cuDeviceGetCount);
	TLY_CU_FN(cuDeviceGet);
	TLY_CU_FN(cuDeviceGetName);
	TLY_CU_FN(cuDeviceGetAttribute);
	TLY_CU_FN(cuDeviceGetUuid);
	TLY_CU_FN(cuDevicePrimaryCtxRetain);
	TLY_CU_FN(cuDevicePrimaryCtxRelease);
	TLY_CU_FN(cuCtxGetCurrent);
	TLY_CU_FN(cuCtxPushCurrent);
	TLY_CU_FN(cuCtxPopCurrent);
	TLY_CU_FN(cuCtxGetDevice);
	TLY_CU_FN(cuCtxSynchronize);
	TLY_CU_FN(cuGetErrorName);
	TLY_CU_FN(cuMemAlloc);
	TLY_CU_FN(cuMemsetD8Async);
	TLY_CU_FN(cuStreamIsCapturing);
	/* Tally's own kernel replay relaunches a kernel (cuda_replay_own.c) */
	TLY_CU_FN(cuLaunchKernel);
	TLY_CU_FN(cuLaunchKernelEx);
	TLY_CU_FN(cuLaunchCooperativeKernel);
};

/* CUPTI entry points. */
struct tly_cu_pti {
	TLY_CU_FN(cuptiGetVersion);
	TLY_CU_FN(cuptiGetResultString);
	TLY_CU_FN(cuptiSubscribe_v2);
	TLY_CU_FN(cuptiUnsubscribe);
	TLY_CU_FN(cuptiEnableCallback);
	TLY_CU_FN(cuptiProfilerInitialize);
	TLY_CU_FN(cuptiProfilerDeInitialize);
	TLY_CU_FN(cuptiDeviceGetChipName);
	TLY_CU_FN(cuptiProfilerDeviceSupported);
	TLY_CU_FN(cuptiProfilerGetCounterAvailability);
	TLY_CU_FN(cuptiProfilerHostInitialize);
	TLY_CU_FN(cuptiProfilerHostDeinitialize);
	TLY_CU_FN(cuptiProfilerHostGetBaseMetrics);
	TLY_CU_FN(cuptiProfilerHostGetSubMetrics);
	TLY_CU_FN(cuptiProfilerHostGetMetricProperties);
	TLY_CU_FN(cuptiProfilerHostConfigAddMetrics);
	TLY_CU_FN(cuptiProfilerHostGetConfigImageSize);
	TLY_CU_FN(cuptiProfilerHostGetConfigImage);
	TLY_CU_FN(cuptiProfilerHostGetNumOfPasses);
	TLY_CU_FN(cuptiProfilerHostEvaluateToGpuValues);
	TLY_CU_FN(cuptiProfilerHostGetMaxNumHardwareMetricsPerPass);
	TLY_CU_FN(cuptiRangeProfilerEnable);
	TLY_CU_FN(cuptiRangeProfilerDisable);
	TLY_CU_FN(cuptiRangeProfilerSetConfig);
	TLY_CU_FN(cuptiRangeProfilerStart);
	TLY_CU_FN(cuptiRangeProfilerStop);
	TLY_CU_FN(cuptiRangeProfilerPushRange);
	TLY_CU_FN(cuptiRangeProfilerPopRange);
	TLY_CU_FN(cuptiRangeProfilerDecodeData);
	TLY_CU_FN(cuptiRangeProfilerGetCounterDataSize);
	TLY_CU_FN(cuptiRangeProfilerCounterDataImageInitialize);
	TLY_CU_FN(cuptiRangeProfilerGetCounterDataInfo);
	TLY_CU_FN(cuptiRangeProfilerCounterDataGetRangeInfo);
};

/* CUPTI PC sampling entry points (cupti_pcsampling.h).  Optional: an
 * older libcupti without them leaves the counters usable. */
struct tly_cu_pcs_fns {
	TLY_CU_FN(cuptiPCSamplingEnable);
	TLY_CU_FN(cuptiPCSamplingDisable);
	TLY_CU_FN(cuptiPCSamplingStart);
	TLY_CU_FN(cuptiPCSamplingStop);
	TLY_CU_FN(cuptiPCSamplingGetData);
	TLY_CU_FN(cuptiPCSamplingSetConfigurationAttribute);
	TLY_CU_FN(cuptiPCSamplingGetConfigurationAttribute);
	TLY_CU_FN(cuptiPCSamplingGetNumStallReasons);
	TLY_CU_FN(cuptiPCSamplingGetStallReasons);
	TLY_CU_FN(cuptiGetCubinCrc);
	TLY_CU_FN(cuptiGetSassToSourceCorrelation);
};

/* CUPTI Activity API entry points (cupti_activity.h), for the event
 * trace's GPU streams (cuda_activity.c).  Optional like PC sampling. */
struct tly_cu_act_fns {
	TLY_CU_FN(cuptiActivityEnable);
	TLY_CU_FN(cuptiActivityDisable);
	TLY_CU_FN(cuptiActivityRegisterCallbacks);
	TLY_CU_FN(cuptiActivityFlushAll);
	TLY_CU_FN(cuptiActivityGetNextRecord);
	TLY_CU_FN(cuptiActivityGetNumDroppedRecords);
	TLY_CU_FN(cuptiGetTimestamp);
	/* NULL in a libcupti without it (the clock is then mapped by pairs) */
	TLY_CU_FN(cuptiActivityRegisterTimestampCallback);
};

/* CUPTI's Checkpoint API (libcheckpoint.so beside libcupti; its header
 * is C++ only, so the handle is declared here with the same layout). */
struct tly_cu_ckpt {
	size_t structSize;
	CUcontext ctx;
	size_t reserveDeviceMB;
	size_t reserveHostMB;
	uint8_t allowOverwrite;
	uint8_t optimizations;
	void *pPriv;
};
#define TLY_CU_CKPT_STRUCT_SIZE (offsetof(struct tly_cu_ckpt, pPriv) + sizeof(void *))
typedef CUptiResult (*tly_cu_ckpt_fn)(struct tly_cu_ckpt *handle);
struct tly_cu_ckpt_fns {
	tly_cu_ckpt_fn cuptiCheckpointSave;
	tly_cu_ckpt_fn cuptiCheckpointRestore;
	tly_cu_ckpt_fn cuptiCheckpointFree;
};

/* What loading found. */
struct tly_cu_libs {
	const struct tly_cu_drv *drv; /* NULL: no driver (no libcuda.so.1) */
	const struct tly_cu_pti *pti; /* NULL: no libcupti */
	char drv_error[256];          /* why drv is NULL */
	char pti_error[256];          /* why pti is NULL */
};

/* Load both libraries once (thread-safe); later calls return the same. */
const struct tly_cu_libs *tly_cu_load(void);
/* The tables tly_cu_load filled (zeroed before it ran). */
const struct tly_cu_libs *tly_cu_libs(void);
/* The PC sampling table after tly_cu_load; NULL (with *why) when libcupti
 * is absent or lacks the PC sampling API. */
const struct tly_cu_pcs_fns *tly_cu_pcs_fns(const char **why);
/* The Activity API table after tly_cu_load; NULL (with *why) when
 * libcupti is absent or lacks it. */
const struct tly_cu_act_fns *tly_cu_act_fns(const char **why);
/* The Checkpoint API table, loaded on first call from the directory of
 * the libcupti in use (then the build's CUPTI directory); NULL with *why
 * when it is absent. */
const struct tly_cu_ckpt_fns *tly_cu_ckpt_fns(const char **why);
/* Unload (at PAPI_shutdown); a later tly_cu_load loads again. */
void tly_cu_unload(void);

/*
 * Status conversion: record "<what>: <CUPTI name>: <text>" as the thread's
 * error detail and return the PAPI code for it (PAPI_OK on success).
 */
int tly_cu_pti_err(CUptiResult r, const char *what);
int tly_cu_drv_err(CUresult r, const char *what);
/* The PAPI code for a CUPTI status, without recording a detail. */
int tly_cu_pti_code(CUptiResult r);
/* "CUPTI_ERROR_...: text" for a status (static storage). */
const char *tly_cu_pti_str(CUptiResult r);

/* Demangle a C++ symbol into buf (copied as-is when no demangler). */
void tly_cu_demangle(const char *sym, char *buf, size_t len);
/* The whole demangled name (the symbol itself when it does not demangle),
 * malloc'ed; NULL only when out of memory. */
char *tly_cu_demangle_dup(const char *sym);

#endif /* TALLY_CUDA_DL_H */
