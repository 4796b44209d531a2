/*
 * test_hw_info.c - PAPI_get_hardware_info against /sys, sysconf and
 * /proc/cpuinfo read here independently.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* realpath, dladdr, clock_gettime, PATH_MAX */
#endif
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "papi.h"
#include "tharness.h"
#include "truth.h"

#define SYS_CPU "/sys/devices/system/cpu"

struct topo {
	int online, threads, cores, sockets, nodes;
};

static long long cpu_attr(int cpu, const char *attr, long long dflt)
{
	char path[160];

	snprintf(path, sizeof path, SYS_CPU "/cpu%d/%s", cpu, attr);
	return truth_ll(path, dflt);
}

static int seen(const long long *v, int n, long long x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

/* Topology by walking every CPU's core_id/physical_package_id. */
static void read_topology(struct topo *t)
{
	long long pkgs[1024], cores[1024], pkg0 = -1, core0 = -1;
	int npk = 0, nco = 0, conf = (int)sysconf(_SC_NPROCESSORS_CONF);
	DIR *d;
	struct dirent *e;

	memset(t, 0, sizeof *t);
	for (int cpu = 0; cpu < conf && cpu < 1024; cpu++) {
		long long pkg = cpu_attr(cpu, "topology/physical_package_id", -2);
		long long core = cpu_attr(cpu, "topology/core_id", -2);

		if (pkg == -2 || cpu_attr(cpu, "online", 1) == 0)
			continue;
		t->online++;
		if (pkg0 == -1 && core0 == -1) {
			pkg0 = pkg;
			core0 = core;
		}
		if (!seen(pkgs, npk, pkg))
			pkgs[npk++] = pkg;
		if (pkg == pkg0 && core == core0)
			t->threads++;
		if (pkg == pkg0 && !seen(cores, nco, core))
			cores[nco++] = core;
	}
	t->sockets = npk;
	t->cores = nco;
	d = opendir("/sys/devices/system/node");
	while (d && (e = readdir(d)))
		if (strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] >= '0' && e->d_name[4] <= '9')
			t->nodes++;
	if (d)
		closedir(d);
	if (t->nodes == 0)
		t->nodes = 1;
}

static void check_before_init(void)
{
	TH_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);
	TH_CHECK(PAPI_get_hardware_info() == NULL);
	TH_CHECK(PAPI_get_executable_info() == NULL);
	TH_CHECK(PAPI_get_shared_lib_info() == NULL);
}

static void check_topology(const PAPI_hw_info_t *hw)
{
	struct topo t;

	read_topology(&t);
	const struct { int line; const char *what; long long got, want; } rows[] = {
		{ __LINE__, "totalcpus", hw->totalcpus, sysconf(_SC_NPROCESSORS_ONLN) },
		{ __LINE__, "totalcpus vs /sys", hw->totalcpus, t.online },
		{ __LINE__, "threads", hw->threads, t.threads },
		{ __LINE__, "cores", hw->cores, t.cores },
		{ __LINE__, "sockets", hw->sockets, t.sockets },
		{ __LINE__, "nnodes", hw->nnodes, t.nodes },
		{ __LINE__, "ncpu", hw->ncpu, t.online / t.nodes },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		if (rows[i].got != rows[i].want)
			fprintf(stderr, "  %s: got %lld want %lld\n", rows[i].what, rows[i].got, rows[i].want);
		TH_EQ(rows[i].got, rows[i].want);
	}
	th_at(0);
}

/* cpufreq when present, else "cpu MHz" (x86), else unknown (0). */
static void check_mhz(const PAPI_hw_info_t *hw, const char *ci)
{
	long long maxk = truth_ll(SYS_CPU "/cpu0/cpufreq/cpuinfo_max_freq", -1);
	long long mink = truth_ll(SYS_CPU "/cpu0/cpufreq/cpuinfo_min_freq", -1);
	const char *mhz = truth_field(ci, "cpu MHz");
	long long cur = mhz ? (long long)(strtod(mhz, NULL) + 0.5) : 0;

	TH_EQ(hw->cpu_max_mhz, maxk > 0 ? maxk / 1000 : cur);
	TH_EQ(hw->cpu_min_mhz, mink > 0 ? mink / 1000 : cur);
	if (mhz)
		TH_NEAR(hw->mhz, strtod(mhz, NULL), 1e-6);
	TH_CHECK(hw->clock_mhz > 0);
}

static void check_identity(const PAPI_hw_info_t *hw, const char *ci)
{
	char s[256];

#if defined(__x86_64__)
	truth_field_str(ci, "vendor_id", s, sizeof s);
	TH_CHECK(strcmp(hw->vendor_string, s) == 0);
	TH_EQ(hw->vendor, strcmp(s, "GenuineIntel") == 0 ? PAPI_VENDOR_INTEL :
			  strcmp(s, "AuthenticAMD") == 0 ? PAPI_VENDOR_AMD : PAPI_VENDOR_UNKNOWN);
	truth_field_str(ci, "model name", s, sizeof s);
	TH_CHECK(strcmp(hw->model_string, s) == 0);
	TH_EQ(hw->cpuid_family, strtol(truth_field(ci, "cpu family"), NULL, 10));
	TH_EQ(hw->cpuid_model, strtol(truth_field(ci, "model"), NULL, 10));
	TH_EQ(hw->model, hw->cpuid_model);
	TH_EQ(hw->cpuid_stepping, strtol(truth_field(ci, "stepping"), NULL, 10));
	TH_EQ(hw->virtualized, strstr(truth_field(ci, "flags"), " hypervisor") != NULL);
	if (hw->virtualized)
		TH_CHECK(hw->virtual_vendor_string[0] != '\0');
#elif defined(__aarch64__)
	TH_EQ(hw->vendor, PAPI_VENDOR_ARM);
	TH_EQ(hw->cpuid_model, strtol(truth_field(ci, "CPU part"), NULL, 0));
	TH_EQ(hw->cpuid_family, strtol(truth_field(ci, "CPU architecture"), NULL, 0));
	TH_EQ(hw->cpuid_stepping, strtol(truth_field(ci, "CPU revision"), NULL, 0));
	TH_EQ((int)hw->revision, strtol(truth_field(ci, "CPU variant"), NULL, 0));
	(void)s;
#else
	(void)ci;
	(void)s;
	TH_CHECK(hw->vendor_string[0] != '\0');
#endif
	if (!hw->virtualized)
		TH_CHECK(hw->virtual_vendor_string[0] == '\0');
}

int main(void)
{
	static char ci[65536];
	const PAPI_hw_info_t *hw;

	check_before_init();
	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		TH_FATAL("PAPI_library_init failed");
	hw = PAPI_get_hardware_info();
	TH_CHECK(hw != NULL);
	if (!hw)
		return th_done();
	TH_CHECK(PAPI_get_hardware_info() == hw);
	if (truth_read("/proc/cpuinfo", ci, sizeof ci) <= 0)
		TH_FATAL("/proc/cpuinfo unreadable");
	check_topology(hw);
	check_identity(hw, ci);
	check_mhz(hw, ci);
	PAPI_shutdown();
	TH_CHECK(PAPI_get_hardware_info() == NULL);
	return th_done();
}
