/*
 * pe_swevents.c - the kernel's software events when libpfm4 names none.
 *
 * libpfm4 names software events through its generic "perf" PMU.  When
 * LIBPFM_FORCE_PMU pins libpfm4 to one PMU (how a CPU without a core PMU
 * is reproduced: LIBPFM_FORCE_PMU=amd64_fam19h_zen3_l3), or
 * LIBPFM_DISABLED_PMUS lists "perf", that PMU is gone and so would be
 * every software event, though the kernel still counts them.  Then the
 * component offers the kernel's own list (PERF_COUNT_SW_*, a fixed ABI),
 * under the same names perf::<NAME>, without modifiers.
 */
#include "pe_internal.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <perfmon/pfmlib_perf_event.h>

#include "core/errors.h"

static const struct {
	const char *name;
	unsigned config;
	const char *desc;
} sw[] = {
	{ "CPU-CLOCK", PERF_COUNT_SW_CPU_CLOCK, "CPU clock: wall time on a CPU, ns" },
	{ "TASK-CLOCK", PERF_COUNT_SW_TASK_CLOCK, "Task clock: time the task ran, ns" },
	{ "PAGE-FAULTS", PERF_COUNT_SW_PAGE_FAULTS, "Page faults" },
	{ "CONTEXT-SWITCHES", PERF_COUNT_SW_CONTEXT_SWITCHES, "Context switches" },
	{ "CPU-MIGRATIONS", PERF_COUNT_SW_CPU_MIGRATIONS, "Migrations of the task to another CPU" },
	{ "MINOR-FAULTS", PERF_COUNT_SW_PAGE_FAULTS_MIN, "Minor page faults (no I/O)" },
	{ "MAJOR-FAULTS", PERF_COUNT_SW_PAGE_FAULTS_MAJ, "Major page faults (I/O)" },
	{ "ALIGNMENT-FAULTS", PERF_COUNT_SW_ALIGNMENT_FAULTS, "Alignment faults fixed by the kernel" },
	{ "EMULATION-FAULTS", PERF_COUNT_SW_EMULATION_FAULTS, "Instructions emulated by the kernel" },
};
#define NSW ((int)(sizeof sw / sizeof sw[0]))

int tly_pe_sw_active(void)
{
	pfm_pmu_info_t pi;

	memset(&pi, 0, sizeof pi);
	pi.size = sizeof pi;
	return !(pfm_get_pmu_info(PFM_PMU_PERF_EVENT, &pi) == PFM_SUCCESS && pi.is_present);
}

int tly_pe_sw_count(void)
{
	return tly_pe_sw_active() ? NSW : 0;
}

/* "perf::NAME" or "NAME", any case, no modifiers: its index, or -1. */
int tly_pe_sw_find(const char *name)
{
	if (!tly_pe_sw_active())
		return -1;
	if (strncasecmp(name, "perf::", 6) == 0)
		name += 6;
	for (int i = 0; i < NSW; i++)
		if (strcasecmp(name, sw[i].name) == 0)
			return i;
	return -1;
}

int tly_pe_sw_name(int i, char *buf, size_t len)
{
	int n;

	if (i < 0 || i >= NSW)
		return tly_err_set(PAPI_ENOEVNT, "perf_event: no software event %d", i);
	n = snprintf(buf, len, "perf::%s", sw[i].name);
	return n < 0 || (size_t)n >= len ? tly_err_set(PAPI_EBUF, "perf_event: %s does not fit", sw[i].name)
	                                 : PAPI_OK;
}

const char *tly_pe_sw_desc(int i)
{
	return i >= 0 && i < NSW ? sw[i].desc : "";
}

void tly_pe_sw_attr(int i, int domain, struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof *attr);
	attr->size = sizeof *attr;
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = sw[i].config;
	attr->exclude_user = !(domain & PAPI_DOM_USER);
	attr->exclude_kernel = !(domain & PAPI_DOM_KERNEL);
	attr->exclude_hv = !(domain & PAPI_DOM_SUPERVISOR);
}
