/*
 * pe_pmu_select.c - which libpfm4 PMUs the component offers, and which one
 * is THE core PMU: the one that says "there is a hardware PMU" and the one
 * PAPI presets map to (tly_pe_pmus_scan decides; the component's core_pmu
 * hook, pe_core_pmu in perf_event.c, hands it to the presets).
 *
 * libpfm4 detects PMUs from CPUID, not from the kernel, and lists uncore
 * PMUs (L3, data fabric, RAPL) beside the core one.  Seen on an AMD EPYC
 * KVM guest: no core PMU in the kernel, libpfm4 4.13 reporting only the
 * uncore amd64_fam19h_zen3_l3 as present.  So:
 * - the core PMU is a libpfm4 PFM_PMU_TYPE_CORE PMU (among several, as
 *   Intel's architectural PMU beside the model's, the one with the most
 *   events), never an uncore one; presets map to it even where it cannot
 *   count, to say what they would count;
 * - "a hardware PMU is here" (core_ok) only when the kernel has a core PMU
 *   too: a core PMU device in /sys/bus/event_source/devices ("cpu",
 *   "cpu_core"/"cpu_atom", Arm's "armv8_*"/"armv7_*", or any device with a
 *   "cpus" list and no "cpumask") and a hardware event that opens;
 *   only then are the core PMU's events offered;
 * - an uncore or other non-core PMU is offered for its own natives only
 *   when the kernel exposes it (one of its events encodes: libpfm4 finds
 *   its device type in sysfs), and never decides anything about presets;
 * - the generic "perf" PMU is always offered (software events).
 */
#include "pe_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <perfmon/pfmlib_perf_event.h>
#include "tally_shared.h"

#define SYSFS_PMUS "/sys/bus/event_source/devices"

static int has_file(const char *dev, const char *file)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof path, "%s/%s/%s", SYSFS_PMUS, dev, file);
	return stat(path, &st) == 0;
}

static int is_core_device(const char *dev)
{
	return strcmp(dev, "cpu") == 0 || strncmp(dev, "cpu_", 4) == 0 || strncmp(dev, "armv", 4) == 0 ||
	       (has_file(dev, "cpus") && !has_file(dev, "cpumask"));
}

/* 1: the kernel lists a core PMU device; 0: it lists none; -1: sysfs is
 * unreadable here (then only the open probe decides).  `names` gets the
 * devices listed, sorted as readdir gives them. */
static int sysfs_core_device(char *names, size_t len)
{
	DIR *d = opendir(SYSFS_PMUS);
	struct dirent *e;
	size_t n = 0;
	int found = 0;

	names[0] = '\0';
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		found |= is_core_device(e->d_name);
		if (n < len)
			n += (size_t)snprintf(names + n, len - n, "%s%s", n ? ", " : "", e->d_name);
	}
	closedir(d);
	return found;
}

static int pmu_info(int pmu, pfm_pmu_info_t *pi)
{
	memset(pi, 0, sizeof *pi);
	pi->size = sizeof *pi;
	return pfm_get_pmu_info((pfm_pmu_t)pmu, pi) == PFM_SUCCESS;
}

static int encodes(const char *name)
{
	struct perf_event_attr a;
	pfm_perf_encode_arg_t arg;

	memset(&a, 0, sizeof a);
	memset(&arg, 0, sizeof arg);
	arg.size = sizeof arg;
	arg.attr = &a;
	return pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) == PFM_SUCCESS;
}

/* Whether the kernel exposes a non-core PMU: one of its first events (as
 * is, or with its first umask) encodes for perf_event. */
static int kernel_exposes(int pmu, const pfm_pmu_info_t *pi)
{
	pfm_event_info_t ei;
	pfm_event_attr_info_t ai;
	char name[2 * TLY_PE_NAME_LEN];
	int tries = 0;

	for (int idx = pi->first_event; idx >= 0 && tries < 8; idx = pfm_get_event_next(idx), tries++) {
		memset(&ei, 0, sizeof ei);
		ei.size = sizeof ei;
		if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS || (int)ei.pmu != pmu)
			break;
		snprintf(name, sizeof name, "%s::%s", pi->name, ei.name);
		if (encodes(name))
			return 1;
		for (int i = 0; i < ei.nattrs; i++) {
			memset(&ai, 0, sizeof ai);
			ai.size = sizeof ai;
			if (pfm_get_event_attr_info(idx, i, PFM_OS_PERF_EVENT_EXT, &ai) != PFM_SUCCESS ||
			    ai.type != PFM_ATTR_UMASK)
				continue;
			snprintf(name, sizeof name, "%s::%s:%s", pi->name, ei.name, ai.name);
			if (encodes(name))
				return 1;
			break;
		}
	}
	return 0;
}

static void appendf(char *buf, size_t len, const char *fmt, const char *a, const char *b)
{
	size_t used = strlen(buf);

	if (used < len)
		snprintf(buf + used, len - used, fmt, a, b);
}

/* Why there is no core PMU, in one sentence a user can act on. */
static void explain(struct tly_pe_probe *p, int kernel_core, const char *devices, const char *libpfm_core,
		    const char *unexposed)
{
	char cpu[256], ver[32], err[160];
	int v = pfm_get_version();

	tly_pe_cpu_model(cpu, sizeof cpu);
	snprintf(ver, sizeof ver, "%d.%d", PFM_MAJ_VERSION(v), PFM_MIN_VERSION(v));
	snprintf(err, sizeof err, "errno %d, %s", p->hw_errno, strerror(p->hw_errno));
	p->core_why[0] = '\0';
	if (kernel_core == 0 || !p->hw_ok) {
		appendf(p->core_why, sizeof p->core_why, "no hardware PMU: the kernel exposes no core PMU for this CPU (%s%s",
			cpu, kernel_core == 0 ? "; " SYSFS_PMUS " lists " : "");
		if (kernel_core == 0)
			appendf(p->core_why, sizeof p->core_why, "%s%s", devices[0] ? devices : "nothing", "");
		appendf(p->core_why, sizeof p->core_why, "%s%s", p->hw_ok ? "" : "; a hardware event does not open: ",
			p->hw_ok ? "" : err);
		appendf(p->core_why, sizeof p->core_why, ")%s%s", "", "");
	} else {
		appendf(p->core_why, sizeof p->core_why, "the kernel counts hardware events on this CPU (%s), but "
			"libpfm4 %s has no core PMU model for it, so presets have no map%s", cpu, ver);
	}
	if (libpfm_core[0])
		appendf(p->core_why, sizeof p->core_why, "; libpfm4's CPUID-detected core PMU %s cannot be used%s",
			libpfm_core, "");
	if (unexposed[0])
		appendf(p->core_why, sizeof p->core_why, "; %s%s: detected by libpfm4 but not exposed by the kernel, "
			"not counted", unexposed, strchr(unexposed, ',') ? " are uncore PMUs" : " is an uncore PMU");
	if (!tly_pe_sw_active())
		appendf(p->core_why, sizeof p->core_why, "; software events only (perf::TASK-CLOCK...)%s%s", "", "");
	else
		appendf(p->core_why, sizeof p->core_why, "; software events only (perf::TASK-CLOCK...: the kernel's "
			"list, as libpfm4 names none%s)%s",
			tly_env_raw("LIBPFM_FORCE_PMU") ? ", LIBPFM_FORCE_PMU limiting it to one PMU" : "", "");
}

static void add_name(char *buf, size_t len, const char *name)
{
	appendf(buf, len, "%s%s", buf[0] ? ", " : "", name);
}

int tly_pe_pmus_scan(struct tly_pe_probe *p, int *core_cntrs)
{
	char devices[1024], libpfm_core[256] = "", unexposed[512] = "";
	int kernel_core = sysfs_core_device(devices, sizeof devices), best = -1;
	pfm_pmu_info_t pi;

	p->npmus = 0;
	p->core_pmu = -1;
	p->core_ok = p->hw_ok && kernel_core != 0;
	*core_cntrs = 0;
	for (int pmu = PFM_PMU_NONE; pmu < PFM_PMU_MAX && p->npmus < TLY_PE_MAX_PMUS; pmu++) {
		if (!pmu_info(pmu, &pi) || !pi.is_present)
			continue;
		if (pi.type == PFM_PMU_TYPE_CORE && pi.nevents > best) {
			best = pi.nevents;
			p->core_pmu = pmu;
			if (p->core_ok)
				*core_cntrs = pi.num_cntrs + pi.num_fixed_cntrs;
		}
		if (pi.type == PFM_PMU_TYPE_CORE || pmu == PFM_PMU_PERF_EVENT_RAW) {
			if (pi.type == PFM_PMU_TYPE_CORE && !p->core_ok)
				add_name(libpfm_core, sizeof libpfm_core, pi.name);
			if (!p->core_ok)
				continue;
		} else if (pi.type != PFM_PMU_TYPE_OS_GENERIC && !kernel_exposes(pmu, &pi)) {
			add_name(unexposed, sizeof unexposed, pi.name);
			continue;
		}
		p->pmus[p->npmus++] = pmu;
	}
	if (!p->core_ok || p->core_pmu < 0)
		explain(p, kernel_core, devices, libpfm_core, unexposed);
	else
		p->core_why[0] = '\0';
	return p->npmus;
}
