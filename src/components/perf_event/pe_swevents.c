/*
 * pe_swevents.c - the kernel's software events when libpfm4 names none.
 *
 * libpfm4 names software events through its generic "perf" PMU.  When
 * LIBPFM_FORCE_PMU pins libpfm4 to one PMU (how a CPU without a core PMU
 * is reproduced: LIBPFM_FORCE_PMU=amd64_fam19h_zen3_l3), or
 * LIBPFM_DISABLED_PMUS lists "perf", that PMU is gone and so would be
 * every software event, though the kernel still counts them.  Then the
 * component offers the kernel's own list (PERF_COUNT_SW_*, a fixed ABI),
 * under the same names perf::<NAME> (or its short alias FAULTS, CS,
 * MIGRATIONS, or PERF_COUNT_SW_<X>) with the
 * privilege modifiers u, k and h.  The generic hardware names of that PMU
 * (perf::INSTRUCTIONS, perf::CYCLES...) are then refused with the reason:
 * no hardware PMU, or libpfm4 pinned to a PMU that does not name them.
 */
#include "pe_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <perfmon/pfmlib_perf_event.h>

#include "services/err_detail.h"
#include "tally_shared.h"

#ifndef PERF_COUNT_SW_CGROUP_SWITCHES
#define PERF_COUNT_SW_CGROUP_SWITCHES 11 /* Linux 5.13 */
#endif

/* name, the `perf` tool's short alias (as libpfm4's perf PMU also takes
 * it), the kernel's PERF_COUNT_SW_<X> suffix, its config, a description */
static const struct {
	const char *name, *alias, *kname;
	unsigned config;
	const char *desc;
} sw[] = {
	{ "CPU-CLOCK", NULL, "CPU_CLOCK", PERF_COUNT_SW_CPU_CLOCK, "CPU clock: wall time on a CPU, ns" },
	{ "TASK-CLOCK", NULL, "TASK_CLOCK", PERF_COUNT_SW_TASK_CLOCK, "Task clock: time the task ran, ns" },
	{ "PAGE-FAULTS", "FAULTS", "PAGE_FAULTS", PERF_COUNT_SW_PAGE_FAULTS, "Page faults" },
	{ "CONTEXT-SWITCHES", "CS", "CONTEXT_SWITCHES", PERF_COUNT_SW_CONTEXT_SWITCHES, "Context switches" },
	{ "CPU-MIGRATIONS", "MIGRATIONS", "CPU_MIGRATIONS", PERF_COUNT_SW_CPU_MIGRATIONS,
	  "Migrations of the task to another CPU" },
	{ "MINOR-FAULTS", NULL, "PAGE_FAULTS_MIN", PERF_COUNT_SW_PAGE_FAULTS_MIN, "Minor page faults (no I/O)" },
	{ "MAJOR-FAULTS", NULL, "PAGE_FAULTS_MAJ", PERF_COUNT_SW_PAGE_FAULTS_MAJ, "Major page faults (I/O)" },
	{ "ALIGNMENT-FAULTS", NULL, "ALIGNMENT_FAULTS", PERF_COUNT_SW_ALIGNMENT_FAULTS,
	  "Alignment faults fixed by the kernel" },
	{ "EMULATION-FAULTS", NULL, "EMULATION_FAULTS", PERF_COUNT_SW_EMULATION_FAULTS,
	  "Instructions emulated by the kernel" },
	{ "CGROUP-SWITCHES", NULL, "CGROUP_SWITCHES", PERF_COUNT_SW_CGROUP_SWITCHES,
	  "Context switches to a task in another cgroup" },
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

/* The perf PMU's generic hardware names (PERF_TYPE_HARDWARE), as libpfm4
 * spells them: refused with a reason while the fallback is active. */
static const char *const hwname[] = { "CYCLES", "CPU-CYCLES", "INSTRUCTIONS", "CACHE-REFERENCES",
	"CACHE-MISSES", "BRANCH-INSTRUCTIONS", "BRANCHES", "BRANCH-MISSES", "BUS-CYCLES",
	"STALLED-CYCLES-FRONTEND", "STALLED-CYCLES-BACKEND", "REF-CYCLES" };

static int is_hw_name(const char *base, size_t n)
{
	for (size_t i = 0; i < sizeof hwname / sizeof hwname[0]; i++)
		if (strlen(hwname[i]) == n && strncasecmp(base, hwname[i], n) == 0)
			return 1;
	return n > 14 && strncasecmp(base, "PERF_COUNT_HW_", 14) == 0;
}

static int refuse_hw(const char *name)
{
	const struct tly_pe_probe *p = tly_pe_probe_get();

	if (!p->hw_ok)
		tly_err_set(PAPI_ENOEVNT, "perf_event: '%s' needs a hardware PMU but the kernel exposes none on "
		            "this machine (perf_event_open of a hardware event: %s); only software events can be "
		            "counted", name, strerror(p->hw_errno));
	else
		tly_err_set(PAPI_ENOEVNT, "perf_event: '%s' is a generic hardware event, and libpfm4 names none "
		            "here (its perf PMU is gone%s); use the core PMU's own event names",
		            name, tly_env_raw("LIBPFM_FORCE_PMU") ? ": LIBPFM_FORCE_PMU limits it to one PMU" : "");
	return -2;
}

static int same(const char *base, size_t n, const char *name)
{
	return name && strlen(name) == n && strncasecmp(base, name, n) == 0;
}

/* Index of BASE (len n; a table name, its alias or PERF_COUNT_SW_<X>),
 * or -1. */
static int base_index(const char *base, size_t n)
{
	for (int i = 0; i < NSW; i++) {
		if (same(base, n, sw[i].name) || same(base, n, sw[i].alias))
			return i;
		if (n > 14 && strncasecmp(base, "PERF_COUNT_SW_", 14) == 0 && same(base + 14, n - 14, sw[i].kname))
			return i;
	}
	return -1;
}

/* Modifiers ":u", ":k", ":h", each optionally "=0" or "=1": the privilege
 * levels to count (a PAPI_DOM_* mask), or -1 when one is unknown; the
 * caller's domain when there are none. */
static int modifiers(const char *m, int domain)
{
	int dom = 0, any = 0;

	while (*m == ':') {
		int bit, on = 1;

		m++;
		bit = (*m == 'u' || *m == 'U') ? PAPI_DOM_USER : (*m == 'k' || *m == 'K') ? PAPI_DOM_KERNEL
		    : (*m == 'h' || *m == 'H') ? PAPI_DOM_SUPERVISOR : 0;
		if (!bit)
			return -1;
		m++;
		if (*m == '=') {
			if ((m[1] != '0' && m[1] != '1'))
				return -1;
			on = m[1] == '1';
			m += 2;
		}
		if (*m && *m != ':')
			return -1;
		dom = on ? dom | bit : dom;
		any = 1;
	}
	return *m ? -1 : any ? dom : domain;
}

/*
 * "[perf::]NAME[:u|:k|:h[=0|1]...]", NAME any case, a table name or the
 * kernel's PERF_COUNT_SW_<X>: its index (and, when attr/canon are given,
 * the perf_event attr for `domain` and the canonical name), -1 when it is
 * not one of these events, -2 (error detail set) for a bad modifier or
 * a generic hardware name "perf::INSTRUCTIONS" (see refuse_hw).
 */
int tly_pe_sw_encode(const char *name, int domain, struct perf_event_attr *attr, char *canon, size_t len)
{
	const char *base = name;
	size_t n;
	int i, dom;

	if (!tly_pe_sw_active())
		return -1;
	if (strncasecmp(base, "perf::", 6) == 0)
		base += 6;
	n = strcspn(base, ":");
	if ((i = base_index(base, n)) < 0)
		return base != name && is_hw_name(base, n) ? refuse_hw(name) : -1;
	if ((dom = modifiers(base + n, domain)) < 0) {
		tly_err_set(PAPI_ENOEVNT, "perf_event: bad modifier in '%s' (libpfm4 names no software events here; the kernel's list takes u, k, h, each =0 or =1)", name);
		return -2;
	}
	if (attr) {
		memset(attr, 0, sizeof *attr);
		attr->size = sizeof *attr;
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = sw[i].config;
		attr->exclude_user = !(dom & PAPI_DOM_USER);
		attr->exclude_kernel = !(dom & PAPI_DOM_KERNEL);
		attr->exclude_hv = !(dom & PAPI_DOM_SUPERVISOR);
	}
	if (canon) {
		int w = snprintf(canon, len, "perf::%.*s%s", (int)n,
		                 n == strlen(sw[i].name) ? sw[i].name : base, base + n);

		for (char *c = canon + 6; c < canon + 6 + n && (size_t)(c - canon) < len; c++)
			*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
		if (w < 0 || (size_t)w >= len) {
			tly_err_set(PAPI_EBUF, "perf_event: canonical name of '%s' does not fit", name);
			return -2;
		}
	}
	return i;
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

