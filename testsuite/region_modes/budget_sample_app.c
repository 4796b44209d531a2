/* budget_sample_app.c - the cost budget's sampled step (test
 * region_budget_sample).  "medium": MEDIUM visits of SPIN_US microseconds
 * of wall time each after visit i touched 1 + i % 4 fresh pages (that
 * many page faults: the ground truth of its counter, 2.5 a visit on
 * average, so an estimate from a sample of its visits is only right when
 * the sample is unbiased; a fault costs 1-20 us of CPU on a virtual
 * machine), its thread CPU time measured inside it (the ground truth
 * of a CPU-time counter); between them LONG visits of "long", each
 * touching PAGES fresh pages and spinning about 2 ms of CPU time.
 * truth.txt: "long visits pages-per-visit" and
 * "medium visits pages cpu-ns spin-ns switches" (switches: the thread's
 * context switches around medium's visits, each of which may book up to
 * TH_SWITCH_GAP_NS to its CPU time and not its task-clock). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "tally.h"

#define LONG 30
#define MEDIUM 12000
#define SPIN_US 20
#define PAGES 64
#define PATTERN 4     /* visit i touches 1 + i % PATTERN pages */
#define BATCH 64      /* visits between two resets of the arena */

static volatile double sink;

static int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
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
	end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + 2000000;
	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 1000; i++)
			s += i * 0.5;
	tally_region_end("long");
	sink = s;
	return munmap(p, (size_t)(PAGES * page));
}

/* One visit of "medium": its pages at *at (fresh since the last reset),
 * then the spin; its CPU time inside the region added to *cpu. */
static void medium_visit(char **at, int npages, long page, int64_t *cpu)
{
	int64_t c0, end;
	double s = 0;

	tally_region_begin("medium");
	c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	for (int i = 0; i < npages; i++)
		(*at)[(long)i * page] = 1;
	*at += (long)npages * page;
	end = clock_ns(CLOCK_MONOTONIC) + SPIN_US * 1000;
	while (clock_ns(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 100; i++)
			s += i * 0.5;
	*cpu += clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	tally_region_end("medium");
	sink = s;
}

int main(void)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t arena_len = (size_t)(BATCH * PATTERN * page);
	char *arena = mmap(NULL, arena_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *at = arena;
	int64_t pages = 0, cpu = 0;
	long switches = 0;
	struct rusage r0, r1;
	FILE *f;

	if (arena == MAP_FAILED)
		return 1;
	madvise(arena, arena_len, MADV_NOHUGEPAGE);   /* a fault a page */
	for (int v = 0, i = 0; v < LONG; v++) {
		if (long_visit(page))
			return 1;
		for (int k = 0; k < MEDIUM / LONG + (v < MEDIUM % LONG); k++, i++) {
			if (i % BATCH == 0) {   /* fresh pages again: the next touch faults */
				if (madvise(arena, arena_len, MADV_DONTNEED))
					return 1;
				at = arena;
			}
			getrusage(RUSAGE_THREAD, &r0);
			medium_visit(&at, 1 + i % PATTERN, page, &cpu);
			getrusage(RUSAGE_THREAD, &r1);
			switches += r1.ru_nvcsw + r1.ru_nivcsw - r0.ru_nvcsw - r0.ru_nivcsw;
			pages += 1 + i % PATTERN;
		}
	}
	f = fopen("truth.txt", "w");
	if (!f)
		return 1;
	fprintf(f, "long %d %d\nmedium %d %lld %lld %d %ld\n", LONG, PAGES, MEDIUM, (long long)pages, (long long)cpu,
		SPIN_US * 1000, switches);
	return fclose(f) ? 1 : 0;
}
