/*
 * nvml_dl.h - the part of NVIDIA's Management Library (NVML) the nvml
 * component uses, loaded at run time from libnvidia-ml.so.1 (the driver
 * installs it; the CUDA toolkit ships no header for it here, so the few
 * types and entry points are declared from NVML's documented C ABI).
 */
#ifndef TALLY_NVML_DL_H
#define TALLY_NVML_DL_H

#include <stddef.h>

typedef int tly_nvml_ret;              /* nvmlReturn_t: 0 = NVML_SUCCESS */
typedef struct tly_nvml_dev *tly_nvml_dev;  /* nvmlDevice_t (opaque) */

#define TLY_NVML_SUCCESS 0
#define TLY_NVML_ERROR_NOT_SUPPORTED 3
#define TLY_NVML_ERROR_NO_PERMISSION 4

/* Enumerator values of nvmlTemperatureSensors_t, nvmlClockType_t and
 * nvmlPcieUtilCounter_t. */
#define TLY_NVML_TEMPERATURE_GPU 0
#define TLY_NVML_CLOCK_SM 1
#define TLY_NVML_CLOCK_MEM 2
#define TLY_NVML_PCIE_TX_BYTES 0
#define TLY_NVML_PCIE_RX_BYTES 1

struct tly_nvml_memory {               /* nvmlMemory_t, bytes */
	unsigned long long total, free, used;
};

struct tly_nvml_util {                 /* nvmlUtilization_t, percent */
	unsigned int gpu, memory;
};

struct tly_nvml_fns {
	tly_nvml_ret (*nvmlInit_v2)(void);
	tly_nvml_ret (*nvmlShutdown)(void);
	const char *(*nvmlErrorString)(tly_nvml_ret);
	tly_nvml_ret (*nvmlDeviceGetCount_v2)(unsigned int *);
	tly_nvml_ret (*nvmlDeviceGetHandleByIndex_v2)(unsigned int, tly_nvml_dev *);
	tly_nvml_ret (*nvmlDeviceGetName)(tly_nvml_dev, char *, unsigned int);
	tly_nvml_ret (*nvmlDeviceGetPowerUsage)(tly_nvml_dev, unsigned int *);
	tly_nvml_ret (*nvmlDeviceGetTotalEnergyConsumption)(tly_nvml_dev, unsigned long long *);
	tly_nvml_ret (*nvmlDeviceGetEnforcedPowerLimit)(tly_nvml_dev, unsigned int *);
	tly_nvml_ret (*nvmlDeviceGetTemperature)(tly_nvml_dev, int, unsigned int *);
	tly_nvml_ret (*nvmlDeviceGetClockInfo)(tly_nvml_dev, int, unsigned int *);
	tly_nvml_ret (*nvmlDeviceGetMemoryInfo)(tly_nvml_dev, struct tly_nvml_memory *);
	tly_nvml_ret (*nvmlDeviceGetUtilizationRates)(tly_nvml_dev, struct tly_nvml_util *);
	tly_nvml_ret (*nvmlDeviceGetPcieThroughput)(tly_nvml_dev, int, unsigned int *);
};

/*
 * Load libnvidia-ml (TALLY_NVML_LIB overrides the name) and resolve every
 * entry point.  Returns the table, or NULL with the reason in why[len]
 * (dlerror's text, or the missing symbol).  Loaded once; the handle stays
 * open for the life of the process.
 */
const struct tly_nvml_fns *tly_nvml_load(char *why, size_t len);

#endif /* TALLY_NVML_DL_H */
