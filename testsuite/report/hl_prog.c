/*
 * hl_prog.c - a program of the high-level region API with known regions
 * for the reader test of its JSON files (test_report.py hl): "outer" 3
 * visits, each holding 2 visits of "inner" (busy work) and 1 of "touch"
 * (NPAGES fresh pages written); one PAPI_hl_read in the first "outer".
 * It prints its own truth as one JSON line: per region the visits, the
 * sum of CLOCK_MONOTONIC from before begin to after end ("outer_ns") and
 * from after begin to before end ("inner_ns"), between which Tally's
 * real time must lie, and the pages touched.  The summary is written at
 * exit to $TALLY_OUTPUT_DIR.
 */
#define _GNU_SOURCE 1
#include "papi.h"
#include "th_clock.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NPAGES 512
#define NREG 3

static const char *const names[NREG] = { "outer", "inner", "touch" };
static long long visits[NREG], outer_ns[NREG], inner_ns[NREG];
static double t_begin[NREG][2];   /* before begin, after begin */

static int begin(int r)
{
	t_begin[r][0] = th_now_ns();
	if (PAPI_hl_region_begin(names[r]) != PAPI_OK)
		return -1;
	t_begin[r][1] = th_now_ns();
	return 0;
}

static int end(int r)
{
	double t2 = th_now_ns(), t3;

	if (PAPI_hl_region_end(names[r]) != PAPI_OK)
		return -1;
	t3 = th_now_ns();
	visits[r]++;
	outer_ns[r] += (long long)(t3 - t_begin[r][0]);
	inner_ns[r] += (long long)(t2 - t_begin[r][1]);
	return 0;
}

static int touch(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(NPAGES * pg), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	madvise(p, (size_t)(NPAGES * pg), MADV_NOHUGEPAGE);
	if (begin(2))
		return -1;
	for (long i = 0; i < NPAGES; i++)
		p[i * pg] = 1;
	if (end(2))
		return -1;
	munmap(p, (size_t)(NPAGES * pg));
	return 0;
}

int main(void)
{
	double sink = 0;

	for (int k = 0; k < 3; k++) {
		if (begin(0))
			return 1;
		for (int i = 0; i < 2; i++) {
			if (begin(1))
				return 1;
			sink += th_spin_rounds(2000000);
			if (end(1))
				return 1;
		}
		if (k == 0 && PAPI_hl_read("outer") != PAPI_OK)
			return 1;
		if (touch() || end(0))
			return 1;
	}
	printf("{\"sink\": %d, \"pages\": %d, \"regions\": {", sink > 0, NPAGES);
	for (int r = 0; r < NREG; r++)
		printf("%s\"%s\": {\"visits\": %lld, \"outer_ns\": %lld, \"inner_ns\": %lld}", r ? ", " : "",
		       names[r], visits[r], outer_ns[r], inner_ns[r]);
	printf("}}\n");
	return 0;
}
