/*
 * nvml_events.c - what each nvml event reads.  Every query is one NVML
 * call per read; pcie_tx/pcie_rx block about 20 ms each (NVML samples the
 * link over that window), the others take microseconds.
 */
#include "nvml_events.h"

#include <string.h>

static tly_nvml_ret rd_power(const struct tly_nvml_fns *f, tly_nvml_dev d, int arg, long long *v)
{
	unsigned int x = 0;
	tly_nvml_ret r = f->nvmlDeviceGetPowerUsage(d, &x);

	(void)arg;
	*v = x;
	return r;
}

static tly_nvml_ret rd_energy(const struct tly_nvml_fns *f, tly_nvml_dev d, int arg, long long *v)
{
	unsigned long long x = 0;
	tly_nvml_ret r = f->nvmlDeviceGetTotalEnergyConsumption(d, &x);

	(void)arg;
	*v = (long long)x;
	return r;
}

static tly_nvml_ret rd_power_limit(const struct tly_nvml_fns *f, tly_nvml_dev d, int arg, long long *v)
{
	unsigned int x = 0;
	tly_nvml_ret r = f->nvmlDeviceGetEnforcedPowerLimit(d, &x);

	(void)arg;
	*v = x;
	return r;
}

/* arg: the sensor (nvmlTemperatureSensors_t) */
static tly_nvml_ret rd_temp(const struct tly_nvml_fns *f, tly_nvml_dev d, int arg, long long *v)
{
	unsigned int x = 0;
	tly_nvml_ret r = f->nvmlDeviceGetTemperature(d, arg, &x);

	*v = x;
	return r;
}

/* arg: the clock (nvmlClockType_t) */
static tly_nvml_ret rd_clock(const struct tly_nvml_fns *f, tly_nvml_dev d, int arg, long long *v)
{
	unsigned int x = 0;
	tly_nvml_ret r = f->nvmlDeviceGetClockInfo(d, arg, &x);

	*v = x;
	return r;
}

static tly_nvml_ret rd_mem_used(const struct tly_nvml_fns *f, tly_nvml_dev d, int arg, long long *v)
{
	struct tly_nvml_memory m = { 0, 0, 0 };
	tly_nvml_ret r = f->nvmlDeviceGetMemoryInfo(d, &m);

	(void)arg;
	*v = (long long)m.used;
	return r;
}

/* arg: 0 the GPU's utilization, 1 its memory's */
static tly_nvml_ret rd_util(const struct tly_nvml_fns *f, tly_nvml_dev d, int arg, long long *v)
{
	struct tly_nvml_util u = { 0, 0 };
	tly_nvml_ret r = f->nvmlDeviceGetUtilizationRates(d, &u);

	*v = arg ? u.memory : u.gpu;
	return r;
}

/* arg: the direction (nvmlPcieUtilCounter_t) */
static tly_nvml_ret rd_pcie(const struct tly_nvml_fns *f, tly_nvml_dev d, int arg, long long *v)
{
	unsigned int x = 0;
	tly_nvml_ret r = f->nvmlDeviceGetPcieThroughput(d, arg, &x);

	*v = x;
	return r;
}

const struct tly_nvml_event tly_nvml_events[] = {
	{ "energy", "mJ", TLY_NVML_COUNTER, "Energy the GPU consumed since the event set started", rd_energy, 0 },
	{ "power", "mW", TLY_NVML_INSTANT, "Power draw of the GPU board now", rd_power, 0 },
	{ "power_limit", "mW", TLY_NVML_INSTANT, "Enforced power limit of the GPU", rd_power_limit, 0 },
	{ "temperature", "C", TLY_NVML_INSTANT, "GPU die temperature now", rd_temp,
	  TLY_NVML_TEMPERATURE_GPU },
	{ "sm_clock", "MHz", TLY_NVML_INSTANT, "SM clock now", rd_clock, TLY_NVML_CLOCK_SM },
	{ "mem_clock", "MHz", TLY_NVML_INSTANT, "Memory clock now", rd_clock, TLY_NVML_CLOCK_MEM },
	{ "memory_used", "B", TLY_NVML_INSTANT, "GPU memory allocated now (all processes)", rd_mem_used,
	  0 },
	{ "gpu_utilization", "%", TLY_NVML_INSTANT,
	  "Percent of the last sample period (1/6 s to 1 s) in which a kernel ran", rd_util, 0 },
	{ "memory_utilization", "%", TLY_NVML_INSTANT,
	  "Percent of the last sample period in which device memory was read or written", rd_util, 1 },
	{ "pcie_tx", "KiB/s", TLY_NVML_INSTANT, "PCIe bytes sent by the GPU per second (20 ms sample)", rd_pcie,
	  TLY_NVML_PCIE_TX_BYTES },
	{ "pcie_rx", "KiB/s", TLY_NVML_INSTANT, "PCIe bytes received by the GPU per second (20 ms sample)",
	  rd_pcie, TLY_NVML_PCIE_RX_BYTES },
};

const int tly_nvml_nevents = (int)(sizeof tly_nvml_events / sizeof tly_nvml_events[0]);

int tly_nvml_event_find(const char *name)
{
	for (int i = 0; i < tly_nvml_nevents; i++)
		if (strcmp(tly_nvml_events[i].name, name) == 0)
			return i;
	return -1;
}

tly_nvml_ret tly_nvml_event_read(int ev, const struct tly_nvml_fns *f, tly_nvml_dev d, long long *v)
{
	return tly_nvml_events[ev].read(f, d, tly_nvml_events[ev].arg, v);
}
