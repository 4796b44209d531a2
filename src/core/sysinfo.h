/*
 * sysinfo.h - hardware, executable, shared-library and memory information,
 * and the clocks behind PAPI_get_{real,virt}_{cyc,usec,nsec}.
 *
 * Sources of truth: /proc/cpuinfo, /sys/devices/system/{cpu,node},
 * cpuid (x86-64), /proc/self/{exe,maps,status}, dl_iterate_phdr and the
 * kernel clocks.  A value that cannot be discovered is left 0 (or empty)
 * rather than guessed; dmem fields the kernel does not report are -1.
 */
#ifndef TALLY_CORE_SYSINFO_H
#define TALLY_CORE_SYSINFO_H

#include "papi.h"
#include "tally_shared.h"   /* tly_cyc_mhz(), shared with the runtime */
#include "services/cpu_clock.h"
#include "core/shlib.h"

/*
 * Fill the hardware and executable info once (PAPI_library_init calls this
 * under the library lock; later calls are no-ops and return PAPI_OK).
 */
int tly_sysinfo_init(void);
/* Releases the shared-library table; hardware/exe info stays valid. */
void tly_sysinfo_shutdown(void);
/* Filled by tly_sysinfo_init; NULL before it. Never changes afterwards. */
const PAPI_hw_info_t *tly_hw_info(void);
const PAPI_exe_info_t *tly_exe_info(void);
/* Where hw's MHz figures came from ("cpufreq", "/proc/cpuinfo",
 * "measured: ..."); NULL before tly_sysinfo_init. */
const char *tly_hw_mhz_source(void);
/* tly_shlib_info: core/shlib.h (included above). */
/*
 * Memory use of the process from /proc/self/status, in KB (pagesize in
 * bytes).  Fields the kernel does not report are -1.  PAPI_EINVAL for
 * NULL, PAPI_ESYS when /proc/self/status cannot be read.
 */
int tly_dmem_info(PAPI_dmem_info_t *dest);

/* Clocks and the CPU's rate: services/cpu_clock.h. */

/* The fill helpers sysinfo.c calls: core/cpu_topology.h, cpu_virt.h,
 * exeinfo.h, mem_hierarchy.h, shlib.h (each its own unit, below this one). */

#endif /* TALLY_CORE_SYSINFO_H */
