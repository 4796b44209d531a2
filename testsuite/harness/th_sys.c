/*
 * th_sys.c - facts of the machine the tests compare against (th_sys.h),
 * read independently of the library.
 */
#include "th_sys.h"

#include <stdio.h>

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
