/*
 * pe_probe.c - what this kernel lets us count, found by trying it.
 *
 * libpfm4 detects PMUs from CPUID alone, so inside a VM without a virtual
 * PMU it reports a core PMU the kernel cannot program; only opening a
 * hardware event tells the truth.
 */
#include "pe_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "services/perf_counter.h"
#include "tally_shared.h"

static int probe_open(__u32 type, __u64 config, int exclude_kernel, int *rdpmc)
{
	struct perf_event_attr a;
	int fd;

	tly_perf_attr_plain(&a, type, config, exclude_kernel);
	if (rdpmc)
		tly_pe_rdpmc_attr(&a);
	fd = tly_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	if (rdpmc) {
		struct perf_event_mmap_page *pg = tly_pe_rdpmc_map(fd);

		*rdpmc = pg != NULL;
		tly_pe_rdpmc_unmap(pg);
	}
	close(fd);
	return 0;
}

int tly_pe_probe_sw(int exclude_kernel)
{
	return tly_perf_opens(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, exclude_kernel);
}

int tly_pe_probe_hw(int *rdpmc)
{
	*rdpmc = 0;
	return probe_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1, rdpmc);
}

static void cpuinfo_field(const char *line, const char *key, char *out, size_t len)
{
	size_t k = strlen(key);
	const char *colon;

	if (out[0] || strncmp(line, key, k) != 0 || !(colon = strchr(line, ':')))
		return;
	colon++;
	while (*colon == ' ' || *colon == '\t')
		colon++;
	snprintf(out, len, "%.*s", (int)strcspn(colon, "\n"), colon);
}

void tly_pe_cpu_model(char *buf, size_t len)
{
	char line[512], vendor[128] = "", model[256] = "";
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (f) {
		while (fgets(line, sizeof line, f)) {
			cpuinfo_field(line, "vendor_id", vendor, sizeof vendor);
			cpuinfo_field(line, "CPU implementer", vendor, sizeof vendor);
			cpuinfo_field(line, "model name", model, sizeof model);
			cpuinfo_field(line, "CPU part", model, sizeof model);
		}
		fclose(f);
	}
	snprintf(buf, len, "%s%s%s", vendor[0] ? vendor : "unknown vendor", " ",
	         model[0] ? model : "unknown model");
}

/* What the component's init found: written by perf_event.c's init and
 * shutdown under its lock, read by every file of the component. */
static struct tly_pe_probe probe;

const struct tly_pe_probe *tly_pe_probe_get(void)
{
	return &probe;
}

struct tly_pe_probe *tly_pe_probe_mut(void)
{
	return &probe;
}

int tly_pe_probe_kernel(struct tly_pe_probe *p)
{
	int rdpmc = 0, err = tly_pe_probe_sw(1);

	if (err)
		return err;
	p->paranoid = tly_perf_paranoid();
	p->kernel_ok = tly_pe_probe_sw(0) == 0;
	p->hw_errno = tly_pe_probe_hw(&rdpmc);
	p->hw_ok = p->hw_errno == 0;
	p->rdpmc_ok = p->hw_ok && rdpmc;
	return 0;
}
