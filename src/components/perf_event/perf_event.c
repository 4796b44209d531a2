/*
 * perf_event.c - the perf_event component: CPU hardware and software
 * events through perf_event_open(2), named by libpfm4.
 */
#include "pe_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <perfmon/pfmlib_perf_event.h>

#include "services/err_detail.h"

/* The component's one piece of mutable state: the names handed to the
 * core (freed at shutdown).  What init found is pe_probe.c's
 * (tly_pe_probe_get), written under `lock`. */
static struct {
	pthread_mutex_t lock;
	char *pmu_names[PAPI_PMU_MAX];
	char *core_pmu; /* libpfm4 name of probe.core_pmu */
} pe_state = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void fill_identity(PAPI_component_info_t *info)
{
	struct utsname u;
	int v = pfm_get_version();

	snprintf(info->name, sizeof info->name, "%s", tly_cmp_perf_event.name);
	snprintf(info->short_name, sizeof info->short_name, "%s", tly_cmp_perf_event.short_name);
	snprintf(info->description, sizeof info->description, "%s", tly_cmp_perf_event.description);
	snprintf(info->version, sizeof info->version, "%s", tly_cmp_perf_event.version);
	snprintf(info->support_version, sizeof info->support_version, "libpfm4 %d.%d",
	         PFM_MAJ_VERSION(v), PFM_MIN_VERSION(v));
	if (uname(&u) == 0)
		snprintf(info->kernel_version, sizeof info->kernel_version, "%.*s",
		         (int)sizeof info->kernel_version - 1, u.release);
}

static void fill_caps(PAPI_component_info_t *info, const struct tly_pe_probe *p)
{
	/* TALLY_PERF_MAX_COUNTERS lowers what we claim (a testing knob). */
	info->num_cntrs = tly_pe_budget() > 0 ? tly_pe_budget() : p->num_cntrs;
	info->num_mpx_cntrs = TLY_PE_MAX_EVENTS;
	info->default_domain = PAPI_DOM_USER;
	info->available_domains = p->kernel_ok ? (PAPI_DOM_USER | PAPI_DOM_KERNEL | PAPI_DOM_SUPERVISOR)
	                                       : PAPI_DOM_USER;
	info->default_granularity = PAPI_GRN_THR;
	info->available_granularities = PAPI_GRN_THR | PAPI_GRN_SYS;
	info->hardware_intr_sig = SIGRTMIN + 2;
	info->hardware_intr = 1;
	info->kernel_multiplex = 1;
	info->fast_counter_read = p->rdpmc_ok ? 1 : 0;
	info->attach = 1;
	info->cpu = 1;
	info->inherit = 1;
	info->cntr_umasks = 1;
}

static void append(char *buf, size_t len, const char *fmt, const char *a, int b)
{
	size_t used = strlen(buf);

	if (used < len)
		snprintf(buf + used, len - used, fmt, a, b);
}

/* Why counting is limited, though the component stays usable. */
static void explain_limits(PAPI_component_info_t *info, const struct tly_pe_probe *p)
{
	info->disabled_reason[0] = '\0';
	if (!p->core_ok)
		snprintf(info->disabled_reason, sizeof info->disabled_reason, "hardware counters unavailable: %s",
		         p->core_why);
	if (!p->kernel_ok)
		append(info->disabled_reason, sizeof info->disabled_reason,
		       "%s/proc/sys/kernel/perf_event_paranoid is %d: only user-domain counting of your own "
		       "threads is allowed (lower it or grant CAP_PERFMON for kernel-domain or CPU-wide counting)",
		       info->disabled_reason[0] ? "; " : "", p->paranoid);
}

static int disable(PAPI_component_info_t *info, int err)
{
	int code = tly_pe_errno_code(err, TLY_PE_OP_PROBE);

	info->disabled = code;
	if (err == EACCES || err == EPERM)
		snprintf(info->disabled_reason, sizeof info->disabled_reason,
		         "perf_event_open is refused even for a user-space software event: "
		         "/proc/sys/kernel/perf_event_paranoid is %d (3 or more forbids it); lower it to 2 or "
		         "less, or grant CAP_PERFMON", tly_perf_paranoid());
	else
		snprintf(info->disabled_reason, sizeof info->disabled_reason,
		         "perf_event_open does not work on this kernel (%s)%s", strerror(err),
		         err == ENOSYS ? ": it was built without CONFIG_PERF_EVENTS" : "");
	return tly_err_set(code, "perf_event: %s", info->disabled_reason);
}

/* Caller holds the lock. */
static void free_names(void)
{
	for (int i = 0; i < PAPI_PMU_MAX; i++) {
		free(pe_state.pmu_names[i]);
		pe_state.pmu_names[i] = NULL;
	}
	free(pe_state.core_pmu);
	pe_state.core_pmu = NULL;
}

static void publish_pmus(PAPI_component_info_t *info, const struct tly_pe_probe *p)
{
	pfm_pmu_info_t pi;

	for (int i = 0; i < p->npmus && i < PAPI_PMU_MAX; i++) {
		memset(&pi, 0, sizeof pi);
		pi.size = sizeof pi;
		if (pfm_get_pmu_info((pfm_pmu_t)p->pmus[i], &pi) != PFM_SUCCESS)
			continue;
		pe_state.pmu_names[i] = strdup(pi.name);
		info->pmu_names[i] = pe_state.pmu_names[i];
	}
	/* libpfm4 names no software events: the component does (pe_swevents.c) */
	if (tly_pe_sw_active() && p->npmus < PAPI_PMU_MAX) {
		pe_state.pmu_names[p->npmus] = strdup("perf");
		info->pmu_names[p->npmus] = pe_state.pmu_names[p->npmus];
	}
	memset(&pi, 0, sizeof pi);
	pi.size = sizeof pi;
	if (p->core_pmu >= 0 && pfm_get_pmu_info((pfm_pmu_t)p->core_pmu, &pi) == PFM_SUCCESS)
		pe_state.core_pmu = strdup(pi.name);
}

/* The preset maps' PMU: libpfm4's core PMU even where the kernel cannot
 * program it, so presets can say what they would count and why not; never
 * an uncore PMU (tly_pe_pmus_scan, pe_pmu_select.c, decides).  *hw_ok:
 * the kernel has a core PMU too. */
/* The perf_event_paranoid level now, for notes on refused presets. */
static int pe_perm_note(char *buf, size_t len)
{
	int level = tly_perf_paranoid();

	if (level == -99)
		return 0;
	snprintf(buf, len, "/proc/sys/kernel/perf_event_paranoid is %d", level);
	return 1;
}

static const char *pe_core_pmu(int *hw_ok)
{
	const char *name;

	pthread_mutex_lock(&pe_state.lock);
	if (hw_ok)
		*hw_ok = tly_pe_probe_get()->core_ok;
	name = pe_state.core_pmu;
	pthread_mutex_unlock(&pe_state.lock);
	return name;
}

static int pe_init(PAPI_component_info_t *info)
{
	struct tly_pe_probe *p = tly_pe_probe_mut();
	int rc, err;

	if (!info)
		return PAPI_EINVAL;
	pthread_mutex_lock(&pe_state.lock);
	free_names();
	memset(p, 0, sizeof *p);
	fill_identity(info);
	rc = pfm_initialize();
	if (rc != PFM_SUCCESS) {
		info->disabled = PAPI_ECMP;
		snprintf(info->disabled_reason, sizeof info->disabled_reason,
		         "libpfm4 failed to initialise: %s", pfm_strerror(rc));
		pthread_mutex_unlock(&pe_state.lock);
		return tly_err_set(PAPI_ECMP, "perf_event: %s", info->disabled_reason);
	}
	err = tly_pe_probe_kernel(p);
	if (err) {
		rc = disable(info, err);
		pthread_mutex_unlock(&pe_state.lock);
		return rc;
	}
	tly_pe_pmus_scan(p, &p->num_cntrs);
	p->initialized = 1;
	fill_caps(info, p);
	publish_pmus(info, p);
	explain_limits(info, p);
	info->disabled = PAPI_OK;
	pthread_mutex_unlock(&pe_state.lock);
	return PAPI_OK;
}

static void pe_shutdown(void)
{
	pthread_mutex_lock(&pe_state.lock);
	free_names();
	if (tly_pe_probe_get()->initialized)
		pfm_terminate();
	memset(tly_pe_probe_mut(), 0, sizeof *tly_pe_probe_mut());
	pthread_mutex_unlock(&pe_state.lock);
}

const struct tly_component tly_cmp_perf_event = {
	.name = "perf_event",
	.short_name = "perf",
	.description = "Linux perf_event CPU counters (hardware and software events, named by libpfm4)",
	.version = "1.0",
	.ctl_size = sizeof(struct tly_pe_ctl),
	.init = pe_init,
	.shutdown = pe_shutdown,
	.ntv_enum = tly_pe_ntv_enum,
	.ntv_lookup = tly_pe_ntv_lookup,
	.ntv_name = tly_pe_ntv_name,
	.ntv_describe = tly_pe_ntv_describe,
	.ctl_init = tly_pe_ctl_init,
	.ctl_update = tly_pe_ctl_update,
	.ctl_set_opts = tly_pe_ctl_set_opts,
	.ctl_start = tly_pe_ctl_start,
	.ctl_stop = tly_pe_ctl_stop,
	.ctl_read = tly_pe_ctl_read,
	.ctl_reset = tly_pe_ctl_reset,
	.ctl_cleanup = tly_pe_ctl_cleanup,
	.ctl_set_overflow = tly_pe_ctl_set_overflow,
	.ctl_ovf_account = tly_pe_ctl_ovf_account,
	.ctl_mpx_coverage = tly_pe_ctl_mpx_coverage,
	.core_pmu = pe_core_pmu,
	.perm_note = pe_perm_note,
};
