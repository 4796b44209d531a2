/*
 * th_sys.c - facts of the machine the tests compare against (th_sys.h),
 * read independently of the library (th_paranoid is the truth
 * tly_perf_paranoid is tested against); whether a counter opens at all is
 * asked the way the library asks (services/perf_counter.c, compiled in).
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include "th_sys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "services/perf_counter.h"   /* the library's one way to open a counter */

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
	int err = tly_perf_opens(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1);

	if (err == 0)
		return;
	printf("SKIP: the kernel refuses perf_event_open of a software task-clock (%s, "
	       "perf_event_paranoid %d): no counters at all here\n", strerror(err), th_paranoid());
	exit(77);
}
