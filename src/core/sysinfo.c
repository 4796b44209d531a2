#include "core/sysinfo.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/cpu_topology.h"
#include "core/cpu_virt.h"
#include "core/exeinfo.h"
#include "core/mem_hierarchy.h"
#include "core/procfs.h"

#define CPUINFO_MAX (64 * 1024)

/*
 * Filled once by tly_sysinfo_init under the library lock and read-only
 * afterwards, so readers need no lock once `filled` is set.
 */
static struct {
	int filled;
	const char *mhz_source;   /* where hw's MHz figures came from */
	PAPI_hw_info_t hw;
	PAPI_exe_info_t exe;
	pthread_once_t clock_once;  /* hw.clock_mhz filled (fill_clock) */
} sys_state = { .clock_once = PTHREAD_ONCE_INIT };

struct vendor_name {
	const char *key;   /* cpuinfo vendor_id, or arm64 implementer code */
	int vendor;
	const char *name;
};

static const struct vendor_name x86_vendors[] = {
	{ "GenuineIntel", PAPI_VENDOR_INTEL, "GenuineIntel" },
	{ "AuthenticAMD", PAPI_VENDOR_AMD, "AuthenticAMD" },
};

/* papi.h has one ARM vendor code; the string names the implementer. */
static const struct vendor_name arm_implementers[] = {
	{ "0x41", PAPI_VENDOR_ARM, "ARM" },       { "0x42", PAPI_VENDOR_ARM, "Broadcom" },
	{ "0x43", PAPI_VENDOR_ARM, "Cavium" },    { "0x46", PAPI_VENDOR_ARM, "Fujitsu" },
	{ "0x48", PAPI_VENDOR_ARM, "HiSilicon" }, { "0x4e", PAPI_VENDOR_ARM, "NVIDIA" },
	{ "0x50", PAPI_VENDOR_ARM, "APM" },       { "0x51", PAPI_VENDOR_ARM, "Qualcomm" },
	{ "0x53", PAPI_VENDOR_ARM, "Samsung" },   { "0x61", PAPI_VENDOR_ARM, "Apple" },
	{ "0xc0", PAPI_VENDOR_ARM, "Ampere" },
};

static long kv_long(const char *text, const char *key, long dflt)
{
	char buf[64], *end;
	long v;

	if (tly_kv_find(text, key, buf, sizeof buf) != PAPI_OK)
		return dflt;
	v = strtol(buf, &end, 0);
	return end == buf ? dflt : v;
}

static void set_vendor(PAPI_hw_info_t *hw, const char *key,
		       const struct vendor_name *tab, size_t n, int fallback)
{
	hw->vendor = PAPI_VENDOR_UNKNOWN;
	snprintf(hw->vendor_string, sizeof hw->vendor_string, "%s", key);
	for (size_t i = 0; i < n; i++) {
		if (strcasecmp(key, tab[i].key) == 0) {
			hw->vendor = tab[i].vendor;
			snprintf(hw->vendor_string, sizeof hw->vendor_string, "%s", tab[i].name);
			return;
		}
	}
	if (key[0])
		hw->vendor = fallback;
}

/* x86: vendor_id, cpu family, model, stepping, model name. */
static void x86_identity(PAPI_hw_info_t *hw, const char *ci, const char *vendor)
{
	set_vendor(hw, vendor, x86_vendors, sizeof x86_vendors / sizeof x86_vendors[0],
		   PAPI_VENDOR_UNKNOWN);
	hw->cpuid_family = (int)kv_long(ci, "cpu family", 0);
	hw->cpuid_model = (int)kv_long(ci, "model", 0);
	hw->cpuid_stepping = (int)kv_long(ci, "stepping", 0);
	hw->model = hw->cpuid_model;
	hw->revision = (float)hw->cpuid_stepping;
	tly_kv_find(ci, "model name", hw->model_string, sizeof hw->model_string);
}

/* arm64: CPU implementer/architecture/variant/part/revision (MIDR fields). */
static void arm_identity(PAPI_hw_info_t *hw, const char *ci, const char *impl)
{
	long part = kv_long(ci, "CPU part", 0);

	set_vendor(hw, impl, arm_implementers,
		   sizeof arm_implementers / sizeof arm_implementers[0], PAPI_VENDOR_ARM);
	hw->cpuid_family = (int)kv_long(ci, "CPU architecture", 0);
	hw->cpuid_model = (int)part;
	hw->cpuid_stepping = (int)kv_long(ci, "CPU revision", 0);
	hw->model = (int)part;
	hw->revision = (float)kv_long(ci, "CPU variant", 0);
	if (tly_kv_find(ci, "model name", hw->model_string, sizeof hw->model_string) != PAPI_OK)
		snprintf(hw->model_string, sizeof hw->model_string, "CPU part 0x%03lx", part);
}

static void identity(PAPI_hw_info_t *hw, const char *ci)
{
	char key[PAPI_MAX_STR_LEN];

	if (tly_kv_find(ci, "vendor_id", key, sizeof key) == PAPI_OK)
		x86_identity(hw, ci, key);
	else if (tly_kv_find(ci, "CPU implementer", key, sizeof key) == PAPI_OK)
		arm_identity(hw, ci, key);
	else
		snprintf(hw->vendor_string, sizeof hw->vendor_string, "Unknown");
}

/*
 * cpufreq knows the real range; without it (VMs, many arm64 boards)
 * /proc/cpuinfo's "cpu MHz" is the only figure, used for both ends;
 * without that either, the cycle counter measured over time
 * (cpu_mhz.c).  Returns where the figure came from.
 */
static const char *frequencies(PAPI_hw_info_t *hw, const char *ci)
{
	const char *fd = "/sys/devices/system/cpu/cpu0/cpufreq", *src = "cpufreq";
	char path[128], buf[64];
	double cur = 0.0;
	long long khz;

	if (tly_kv_find(ci, "cpu MHz", buf, sizeof buf) == PAPI_OK)
		cur = strtod(buf, NULL);
	snprintf(path, sizeof path, "%s/cpuinfo_max_freq", fd);
	khz = tly_read_ll(path, 0);
	hw->cpu_max_mhz = khz > 0 ? (int)(khz / 1000) : (int)(cur + 0.5);
	if (khz <= 0)
		src = "/proc/cpuinfo";
	snprintf(path, sizeof path, "%s/cpuinfo_min_freq", fd);
	khz = tly_read_ll(path, 0);
	hw->cpu_min_mhz = khz > 0 ? (int)(khz / 1000) : (int)(cur + 0.5);
	if (cur <= 0.0) {
		snprintf(path, sizeof path, "%s/scaling_cur_freq", fd);
		cur = (double)tly_read_ll(path, 0) / 1000.0;
	}
	/* hw->clock_mhz: at the first tly_hw_info (measuring the cycle
	 * counter's rate waits 10 ms, which PAPI_library_init then spared
	 * every process that never asks) */
	if (hw->cpu_max_mhz <= 0 && cur <= 0.0) {
		cur = tly_cpu_mhz_measure();
		hw->cpu_max_mhz = hw->cpu_min_mhz = (int)(cur + 0.5);
		src = cur > 0.0 ? "measured: cycle counter over time" : "none published, no cycle counter";
	}
	/* Last resort for mhz: the time base's rate, which is at least real. */
	if (cur <= 0.0)
		cur = hw->cpu_max_mhz > 0 ? hw->cpu_max_mhz : tly_cyc_mhz();
	hw->mhz = (float)cur;
	return src;
}

static void fill_hw(PAPI_hw_info_t *hw)
{
	char *ci = malloc(CPUINFO_MAX);

	memset(hw, 0, sizeof *hw);
	if (ci && tly_read_text("/proc/cpuinfo", ci, CPUINFO_MAX) < 0)
		ci[0] = '\0';
	identity(hw, ci ? ci : "");
	tly_topology_fill(hw);
	sys_state.mhz_source = frequencies(hw, ci ? ci : "");
	tly_virt_fill(hw, ci);
	tly_mh_fill(&hw->mem_hierarchy);
	free(ci);
}

int tly_sysinfo_init(void)
{
	if (sys_state.filled)
		return PAPI_OK;
	fill_hw(&sys_state.hw);
	/* Missing exe info (e.g. /proc not mounted) must not stop the library. */
	(void)tly_exe_fill(&sys_state.exe);
	sys_state.filled = 1;
	return PAPI_OK;
}

void tly_sysinfo_shutdown(void)
{
	tly_shlib_release();
}

static void fill_clock(void)
{
	sys_state.hw.clock_mhz = (int)(tly_cyc_mhz() + 0.5);
}

const PAPI_hw_info_t *tly_hw_info(void)
{
	if (!sys_state.filled)
		return NULL;
	pthread_once(&sys_state.clock_once, fill_clock);
	return &sys_state.hw;
}

const PAPI_exe_info_t *tly_exe_info(void)
{
	return sys_state.filled ? &sys_state.exe : NULL;
}

const char *tly_hw_mhz_source(void)
{
	return sys_state.filled ? sys_state.mhz_source : NULL;
}
