/*
 * th_sys.c - facts of the machine the tests compare against (th_sys.h),
 * read independently of the library.
 */
#define _GNU_SOURCE /* syscall(2) */
#include "th_sys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

int th_paranoid(void)
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

long long th_thread_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return -1;
	return (long long)ru.ru_minflt + ru.ru_majflt;
}

void th_need_sw_perf(void)
{
	struct perf_event_attr a;
	int fd;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_TASK_CLOCK;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0UL);
	if (fd >= 0) {
		close(fd);
		return;
	}
	printf("SKIP: the kernel refuses perf_event_open of a software task-clock (%s, "
	       "perf_event_paranoid %d): no counters at all here\n", strerror(errno), th_paranoid());
	exit(77);
}
