/* budget_app.c - regions for the cost budget (test region_budget): LONG
 * visits of "long", each touching PAGES fresh pages (PAGES page faults: the
 * ground truth of its counter) and spinning about 2 ms, between which
 * SHORT/LONG visits of the empty region "short" run, whose counter reads
 * cost far more than its own time.  truth.txt: name visits faults-per-visit. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "tally.h"

#define LONG 40
#define SHORT 400000
#define PAGES 64

static volatile double sink;

static int64_t cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int long_visit(long page)
{
	char *p = mmap(NULL, (size_t)(PAGES * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int64_t end;
	double s = 0;

	if (p == MAP_FAILED)
		return -1;
	tally_region_begin("long");
	for (int i = 0; i < PAGES; i++)
		p[(long)i * page] = 1;
	end = cpu_now() + 2000000;
	while (cpu_now() < end)
		for (int i = 0; i < 1000; i++)
			s += i * 0.5;
	tally_region_end("long");
	sink = s;
	return munmap(p, (size_t)(PAGES * page));
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	FILE *f;

	for (int v = 0; v < LONG; v++) {
		if (long_visit(page))
			return 1;
		for (int i = 0; i < SHORT / LONG; i++) {
			tally_region_begin("short");
			tally_region_end("short");
		}
	}
	f = fopen("truth.txt", "w");
	if (!f)
		return 1;
	fprintf(f, "long %d %d\nshort %d 0\n", LONG, PAGES, SHORT);
	return fclose(f) ? 1 : 0;
}
