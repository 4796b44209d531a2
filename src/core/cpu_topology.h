/*
 * cpu_topology.h - the processor's topology from /sys.
 * sysinfo.c calls this once, under the library lock (includes point down:
 * sysinfo -> cpu_topology).
 */
#ifndef TALLY_CORE_CPU_TOPOLOGY_H
#define TALLY_CORE_CPU_TOPOLOGY_H

#include "papi.h"

/* threads, cores, sockets, totalcpus, nnodes, ncpu from /sys. */
void tly_topology_fill(PAPI_hw_info_t *hw);

#endif /* TALLY_CORE_CPU_TOPOLOGY_H */
