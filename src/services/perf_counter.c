/*
 * perf_counter.c - opening one perf counter and trying whether one opens
 * (perf_counter.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* syscall(2); the tests' harness compiles this file too */
#endif
#include "services/perf_counter.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

int tly_perf_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -99;

	if (!f)
		return v;
	if (fscanf(f, "%d", &v) != 1)
		v = -99;
	fclose(f);
	return v;
}

int tly_perf_open(struct perf_event_attr *attr, long pid, int cpu, int group_fd, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, (pid_t)pid, cpu, group_fd, flags);
}

void tly_perf_attr_plain(struct perf_event_attr *a, __u32 type, __u64 config, int exclude_kernel)
{
	memset(a, 0, sizeof *a);
	a->size = sizeof *a;
	a->type = type;
	a->config = config;
	a->disabled = 1;
	a->exclude_kernel = exclude_kernel ? 1 : 0;
	a->exclude_hv = 1;
}

int tly_perf_opens(__u32 type, __u64 config, int exclude_kernel)
{
	struct perf_event_attr a;
	int fd;

	tly_perf_attr_plain(&a, type, config, exclude_kernel);
	fd = tly_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}
