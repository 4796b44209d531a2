#include "core/cpu_topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/procfs.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define MAX_PACKAGES 256

/* Count of CPUs in the list file `path`; 0 when absent or malformed. */
static int list_file_count(const char *path)
{
	char buf[4096];
	int n;

	if (tly_read_line(path, buf, sizeof buf) != PAPI_OK)
		return 0;
	n = tly_cpulist_count(buf);
	return n > 0 ? n : 0;
}

/* Count of CPUs in cpu<cpu>/topology/<a>, falling back to the older name <b>. */
static int topo_count(int cpu, const char *a, const char *b)
{
	char path[160];
	int n;

	snprintf(path, sizeof path, CPU_DIR "/cpu%d/topology/%s", cpu, a);
	n = list_file_count(path);
	if (n == 0) {
		snprintf(path, sizeof path, CPU_DIR "/cpu%d/topology/%s", cpu, b);
		n = list_file_count(path);
	}
	return n;
}

static int add_package(long long *ids, int n, long long id)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return n;
	if (n < MAX_PACKAGES)
		ids[n++] = id;
	return n;
}

/*
 * Distinct physical_package_id values over the online CPUs; also returns
 * the first online CPU so per-core counts come from a CPU that exists.
 */
static int count_sockets(const char *online, int *first)
{
	long long ids[MAX_PACKAGES];
	const char *p = online;
	int n = 0;

	*first = -1;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), b = a;

		if (end == p)
			break;
		if (*end == '-')
			b = strtol(end + 1, &end, 10);
		for (long cpu = a; cpu <= b; cpu++) {
			char path[160];
			long long id;

			snprintf(path, sizeof path, CPU_DIR "/cpu%ld/topology/physical_package_id", cpu);
			id = tly_read_ll(path, -2);
			if (id == -2)
				continue;
			if (*first < 0)
				*first = (int)cpu;
			n = add_package(ids, n, id);
		}
		p = *end == ',' ? end + 1 : end + strlen(end);
	}
	return n;
}

void tly_topology_fill(PAPI_hw_info_t *hw)
{
	char online[4096];
	int first = 0, per_pkg;

	hw->totalcpus = list_file_count(CPU_DIR "/online");
	if (hw->totalcpus <= 0)
		hw->totalcpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	hw->sockets = 0;
	if (tly_read_line(CPU_DIR "/online", online, sizeof online) == PAPI_OK)
		hw->sockets = count_sockets(online, &first);
	if (first < 0)
		first = 0;
	hw->threads = topo_count(first, "core_cpus_list", "thread_siblings_list");
	per_pkg = topo_count(first, "package_cpus_list", "core_siblings_list");
	if (hw->threads <= 0)
		hw->threads = 1;
	hw->cores = per_pkg > 0 ? per_pkg / hw->threads : hw->totalcpus / hw->threads;
	if (hw->sockets <= 0)
		hw->sockets = 1;
	/* Kernels without NUMA support have no node directory: one node. */
	hw->nnodes = list_file_count("/sys/devices/system/node/online");
	if (hw->nnodes <= 0)
		hw->nnodes = 1;
	hw->ncpu = hw->totalcpus / hw->nnodes;
}
