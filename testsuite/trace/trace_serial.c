/*
 * trace_serial.c - a program without MPI for the trace tests: nested user
 * regions on the main thread and in an OpenMP parallel region, then its
 * own count of the region events it made and its peak memory (VmHWM).
 * Usage: trace_serial N   (N inner visits on the main thread)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tally.h"

static volatile double sink;

static long vm_hwm_kib(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "VmHWM:", 6))
			v = atol(line + 6);
	if (f)
		fclose(f);
	return v;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, events = 0;

	tally_region_begin("outer");
	for (long i = 0; i < n; i++) {
		tally_region_begin("inner");
		sink += (double)i;
		if (i % 100 == 0) {
			tally_region_begin("deep");
			sink *= 1.0000001;
			tally_region_end("deep");
			events += 2;
		}
		tally_region_end("inner");
	}
	tally_region_end("outer");
	events += 2 * n + 2;
#pragma omp parallel reduction(+ : events)
	{
		for (int k = 0; k < 50; k++) {
			tally_region_begin("worker");
			sink += 1.0;
			tally_region_end("worker");
			events += 2;
		}
	}
	printf("user region events %ld\n", events);
	printf("vmhwm_kib %ld\n", vm_hwm_kib());
	return 0;
}
