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
/*
 * Re-read /proc/self/maps each call (libraries come and go): one entry per
 * mapped file that has an executable mapping (the program itself included).
 * text = its r-x mapping, data = its rw- file mapping, bss = the anonymous
 * rw- mapping right after the data (when present).  The returned table is
 * owned by Tally and valid only until the next call (from any thread) or
 * PAPI_shutdown.  NULL (detail set) when the maps cannot be read.
 */
const PAPI_shlib_info_t *tly_shlib_info(void);
/*
 * Memory use of the process from /proc/self/status, in KB (pagesize in
 * bytes).  Fields the kernel does not report are -1.  PAPI_EINVAL for
 * NULL, PAPI_ESYS when /proc/self/status cannot be read.
 */
int tly_dmem_info(PAPI_dmem_info_t *dest);

/* Clocks and the CPU's rate: services/cpu_clock.h. */

/* ---- Fill helpers: sysinfo.c calls these once, under the library lock. */

/* Cache levels from /sys/devices/system/cpu/cpu0/cache (+ TLBs via cpuid). */
void tly_mh_fill(PAPI_mh_info_t *mh);
/* threads, cores, sockets, totalcpus, nnodes, ncpu from /sys. */
void tly_topology_fill(PAPI_hw_info_t *hw);
/* virtualized and virtual_vendor_string (`cpuinfo` = /proc/cpuinfo text). */
void tly_virt_fill(PAPI_hw_info_t *hw, const char *cpuinfo);
/* fullname and address_info of the main program; PAPI_OK or PAPI_ESYS. */
int tly_exe_fill(PAPI_exe_info_t *exe);
/* Free the shared-library table (PAPI_shutdown). */
void tly_shlib_release(void);

#endif /* TALLY_CORE_SYSINFO_H */
