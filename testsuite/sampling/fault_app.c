/*
 * fault_app.c - page faults at known places, for sampling on a counter
 * (TALLY_SAMPLING_EVENT=perf::PAGE-FAULTS@P): fault_big touches three
 * times as many fresh pages as fault_small, in alternating rounds; each
 * first touch of a page of a fresh anonymous mapping (no huge pages) is
 * one minor fault.  The ground truth, the thread's minor faults inside
 * each function (getrusage RUSAGE_THREAD), goes to fault_app.txt.
 *
 * fault_app [PAGES_PER_ROUND] [ROUNDS]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	return ru.ru_minflt;
}

static char *fresh(long pages, long pg)
{
	char *p = mmap(NULL, (size_t)(pages * pg), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("fault_app: mmap");
		exit(1);
	}
	madvise(p, (size_t)(pages * pg), MADV_NOHUGEPAGE);
	return p;
}

/* One store per page: its first touch faults, here. */
static __attribute__((noinline)) void fault_big(volatile char *p, long pages, long pg)
{
	for (long i = 0; i < pages; i++)
		p[i * pg] = 1;   /* FAULT_BIG */
}

static __attribute__((noinline)) void fault_small(volatile char *p, long pages, long pg)
{
	for (long i = 0; i < pages; i++)
		p[i * pg] = 2;   /* FAULT_SMALL */
}

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 3000, rounds = argc > 2 ? atol(argv[2]) : 8;
	long pg = sysconf(_SC_PAGESIZE), big = 0, small = 0, f;
	FILE *out;

	for (long r = 0; r < rounds; r++) {
		char *a = fresh(pages, pg), *b = fresh(pages / 3, pg);

		f = minflt();
		fault_big(a, pages, pg);
		big += minflt() - f;
		f = minflt();
		fault_small(b, pages / 3, pg);
		small += minflt() - f;
		munmap(a, (size_t)(pages * pg));
		munmap(b, (size_t)(pages / 3 * pg));
	}
	if (!(out = fopen("fault_app.txt", "w")))
		return 1;
	fprintf(out, "fault_big %ld\nfault_small %ld\n", big, small);
	fclose(out);
	return 0;
}
