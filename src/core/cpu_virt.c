#include "core/cpu_virt.h"

#include <stdio.h>
#include <string.h>

#include "core/procfs.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

/* DMI system vendors that only hypervisors report. */
static const char *const vm_vendors[] = {
	"QEMU", "KVM", "Xen", "VMware, Inc.", "innotek GmbH", "Parallels",
	"Bochs", "Red Hat", "Amazon EC2", "Google", "Microsoft Corporation",
};

/* " flags : a b c" contains the whole word `word`. */
static int has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

#if defined(__x86_64__)
/* The hypervisor's 12-byte signature in cpuid leaf 0x40000000. */
static void cpuid_hv_vendor(char *out, size_t len)
{
	unsigned int a, regs[3];
	char sig[13];

	__cpuid(0x40000000, a, regs[0], regs[1], regs[2]);
	memcpy(sig, regs, 12);
	sig[12] = '\0';
	snprintf(out, len, "%s", sig);
}
#endif

/*
 * A DMI vendor is only trusted as "virtual" when it is a known VM vendor:
 * physical servers report their maker in the same file.
 */
static int dmi_vm_vendor(char *out, size_t len)
{
	char buf[PAPI_MAX_STR_LEN];

	if (tly_read_line("/sys/class/dmi/id/sys_vendor", buf, sizeof buf) != PAPI_OK)
		return 0;
	for (size_t i = 0; i < sizeof vm_vendors / sizeof vm_vendors[0]; i++) {
		if (strncmp(buf, vm_vendors[i], strlen(vm_vendors[i])) == 0) {
			snprintf(out, len, "%s", buf);
			return 1;
		}
	}
	return 0;
}

/* QEMU's generic arm64 machine says so in the device tree. */
static int dt_vm_vendor(char *out, size_t len)
{
	char buf[256];
	long n = tly_read_text("/proc/device-tree/compatible", buf, sizeof buf);

	/* The property is a list of NUL-separated strings: search each. */
	for (long off = 0; off < n; off += (long)strlen(buf + off) + 1) {
		if (strstr(buf + off, "dummy-virt")) {
			snprintf(out, len, "QEMU");
			return 1;
		}
	}
	return 0;
}

void tly_virt_fill(PAPI_hw_info_t *hw, const char *cpuinfo)
{
	char flags[4096];

	hw->virtualized = 0;
	hw->virtual_vendor_string[0] = '\0';
	hw->virtual_vendor_version[0] = '\0';
	if (cpuinfo && tly_kv_find(cpuinfo, "flags", flags, sizeof flags) == PAPI_OK &&
	    has_word(flags, "hypervisor")) {
		hw->virtualized = 1;
#if defined(__x86_64__)
		cpuid_hv_vendor(hw->virtual_vendor_string, sizeof hw->virtual_vendor_string);
#endif
	}
	if (hw->virtual_vendor_string[0] == '\0') {
		char v[PAPI_MAX_STR_LEN];

		if (dmi_vm_vendor(v, sizeof v) || dt_vm_vendor(v, sizeof v)) {
			hw->virtualized = 1;
			snprintf(hw->virtual_vendor_string, sizeof hw->virtual_vendor_string, "%s", v);
		}
	}
}
