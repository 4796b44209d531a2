/*
 * cpu_virt.h - whether the processor runs under a hypervisor, and which.
 * sysinfo.c calls this once, under the library lock (includes point down:
 * sysinfo -> cpu_virt).
 */
#ifndef TALLY_CORE_CPU_VIRT_H
#define TALLY_CORE_CPU_VIRT_H

#include "papi.h"

/* virtualized and virtual_vendor_string (`cpuinfo` = /proc/cpuinfo text). */
void tly_virt_fill(PAPI_hw_info_t *hw, const char *cpuinfo);

#endif /* TALLY_CORE_CPU_VIRT_H */
