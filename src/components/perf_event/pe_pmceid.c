/*
 * pe_pmceid.c - which Arm common events the CPU PMU really implements.
 *
 * An Armv8 PMU advertises the common architectural events it implements
 * in PMCEID0/1_EL0 (events 0x00-0x3f) and their upper halves (extended
 * events 0x4000-0x403f); Linux shows exactly those under
 * /sys/bus/event_source/devices/armv8_* /events.  The kernel still
 * accepts a raw encoding of an unimplemented one and counts 0 forever
 * (QEMU's emulated PMU implements only cycles and instructions), so
 * Tally refuses such an event with PAPI_ENOEVNT and says why: a preset
 * built on it is then reported unavailable instead of listed and always
 * zero.
 *
 * Implementation-defined events (0x40 and up outside the extended range)
 * are not advertised anywhere.  The architecture requires every PMUv3 to
 * implement L1D_CACHE_REFILL (0x03), L1D_CACHE (0x04), BR_MIS_PRED (0x10)
 * and BR_PRED (0x12); a PMU that does not advertise all of them (QEMU's)
 * is an incomplete emulation, and its implementation-defined events are
 * treated as unimplemented too.  On a conforming PMU they pass.
 * Machines without an armv8 PMU in sysfs are not restricted.
 */
#include "pe_internal.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "services/err_detail.h"

#define SYSFS_PMUS "/sys/bus/event_source/devices"

/* Read once per process: the PMU does not change under us. */
static struct {
	pthread_mutex_t lock;
	int loaded;
	int have;             /* an armv8 PMU lists its events */
	uint64_t common[2];   /* bit e: common event e (0..127) */
	uint64_t ext[2];      /* bit e: extended event 0x4000 + e */
	char pmu[64];         /* its sysfs name, for messages */
} pmceid = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void mark(unsigned code)
{
	if (code < 128)
		pmceid.common[code / 64] |= 1ull << (code % 64);
	else if (code >= 0x4000 && code < 0x4080)
		pmceid.ext[(code - 0x4000) / 64] |= 1ull << ((code - 0x4000) % 64);
}

static void load_pmu(const char *name)
{
	char path[512], line[128];
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof path, SYSFS_PMUS "/%s/events", name);
	if (!(d = opendir(path)))
		return;
	while ((e = readdir(d))) {
		unsigned code;
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, SYSFS_PMUS "/%s/events/%s", name, e->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (fgets(line, sizeof line, f) && sscanf(line, "event=%x", &code) == 1) {
			mark(code);
			pmceid.have = 1;
		}
		fclose(f);
	}
	closedir(d);
	if (pmceid.have && !pmceid.pmu[0])
		snprintf(pmceid.pmu, sizeof pmceid.pmu, "%s", name);
}

static void load(void)
{
	struct dirent *e;
	DIR *d = opendir(SYSFS_PMUS);

	pmceid.loaded = 1;
	if (!d)
		return;
	while ((e = readdir(d)))
		if (strncmp(e->d_name, "armv8_", 6) == 0)
			load_pmu(e->d_name);
	closedir(d);
}

/* The common events PMUv3 requires (Arm ARM, "Required events"). */
static int conforming(void)
{
	static const unsigned required[] = { 0x03, 0x04, 0x10, 0x12 };

	for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
		if (!((pmceid.common[0] >> required[i]) & 1))
			return 0;
	return 1;
}

static int implemented(unsigned code)
{
	if (code < 0x40)
		return (pmceid.common[code / 64] >> (code % 64)) & 1;
	if (code >= 0x4000 && code < 0x4040)
		return (pmceid.ext[(code - 0x4000) / 64] >> ((code - 0x4000) % 64)) & 1;
	return conforming(); /* implementation defined: trust a conforming PMU */
}

int tly_pe_pmu_implements(const struct perf_event_attr *a, const char *name)
{
	unsigned code = (unsigned)(a->config & 0xffff);
	int ok, have;

	if (a->type != PERF_TYPE_RAW)
		return PAPI_OK;
	pthread_mutex_lock(&pmceid.lock);
	if (!pmceid.loaded)
		load();
	have = pmceid.have;
	ok = !have || implemented(code);
	pthread_mutex_unlock(&pmceid.lock);
	if (ok)
		return PAPI_OK;
	if (code < 0x40 || (code >= 0x4000 && code < 0x4040))
		return tly_err_set(PAPI_ENOEVNT, "perf_event: the %s PMU does not implement %s: common event %#x "
		                   "is not among those it advertises (PMCEID0/1, listed in " SYSFS_PMUS
		                   "/%s/events); it would count 0", pmceid.pmu, name, code, pmceid.pmu);
	return tly_err_set(PAPI_ENOEVNT, "perf_event: the %s PMU does not advertise the common events every "
	                   "PMUv3 must implement (an emulated PMU such as QEMU's), so its implementation-defined "
	                   "event %s (%#x) is taken as unimplemented; it would count 0", pmceid.pmu, name, code);
}
