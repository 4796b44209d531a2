/*
 * mem_hierarchy.h - cache and TLB levels.
 * sysinfo.c calls this once, under the library lock (includes point down:
 * sysinfo -> mem_hierarchy).
 */
#ifndef TALLY_CORE_MEM_HIERARCHY_H
#define TALLY_CORE_MEM_HIERARCHY_H

#include "papi.h"

/* Cache levels from /sys/devices/system/cpu/cpu0/cache (+ TLBs via cpuid). */
void tly_mh_fill(PAPI_mh_info_t *mh);

#endif /* TALLY_CORE_MEM_HIERARCHY_H */
