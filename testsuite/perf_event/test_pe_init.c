/*
 * test_pe_init.c - component init on this machine: what it reports must
 * match what the kernel actually allows, probed here with raw syscalls.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "pe_test.h"
#include "th_sys.h"

static int raw_open(__u32 type, __u64 config, int exclude_kernel)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = (unsigned)exclude_kernel;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static int has_pmu(const PAPI_component_info_t *info, const char *name)
{
	for (int i = 0; i < PAPI_PMU_MAX && info->pmu_names[i]; i++)
		if (strcmp(info->pmu_names[i], name) == 0)
			return 1;
	return 0;
}

int main(void)
{
	PAPI_component_info_t info;
	int hw_err = raw_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1);
	int kern_err = raw_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0);
	char want[64];

	pe_test_init(&info);
	printf("disabled_reason: %s\n", info.disabled_reason);
	TH_EQ(info.disabled, PAPI_OK);
	TH_CHECK(strcmp(info.name, "perf_event") == 0);
	TH_CHECK(strcmp(info.short_name, "perf") == 0);
	TH_EQ(info.default_domain, PAPI_DOM_USER);
	TH_EQ(info.default_granularity, PAPI_GRN_THR);
	TH_EQ(info.kernel_multiplex, 1);
	TH_EQ(info.attach, 1);
	TH_EQ(info.cpu, 1);
	TH_EQ(info.inherit, 1);
	TH_CHECK(has_pmu(&info, "perf"));
	/* kernel domain is advertised exactly when the kernel allows it */
	TH_EQ(!!(info.available_domains & PAPI_DOM_KERNEL), kern_err == 0);
	if (hw_err) {
		/* no hardware PMU in the kernel: software only, and says why */
		TH_EQ(info.num_cntrs, 0);
		TH_EQ(info.fast_counter_read, 0);
		TH_CHECK(strstr(info.disabled_reason, "hardware counters unavailable") != NULL);
		TH_CHECK(strstr(info.disabled_reason, "software events only") != NULL);
		TH_CHECK(!has_pmu(&info, "perf_raw"));
	} else {
		TH_CHECK(info.num_cntrs > 0);
		TH_CHECK(strstr(info.disabled_reason, "hardware counters unavailable") == NULL);
	}
	snprintf(want, sizeof want, "perf_event_paranoid is %d", th_paranoid());
	TH_EQ(strstr(info.disabled_reason, want) != NULL, kern_err != 0);

	pe->shutdown();
	TH_CHECK(tly_pe_probe_get()->initialized == 0);
	/* init again after shutdown works and reports the same */
	pe_test_init(&info);
	TH_CHECK(has_pmu(&info, "perf"));
	pe->shutdown();
	return th_done();
}
