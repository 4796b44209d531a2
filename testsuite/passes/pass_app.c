/* pass_app.c - deterministic work per visit for the multi-pass tests.
 * argv[1]: visits of region "step" (default 12); argv[2]: pages touched
 * per visit (default 64); argv[3] "serial": no MPI at all; "vary": a
 * deliberately non-deterministic program for application replay, one more
 * visit per TALLY_PASS_INDEX (run k of tally-run --passes does k more).  Each visit maps fresh anonymous memory, touches
 * every page once (one minor fault per page: huge pages are refused) and
 * unmaps it, so a visit's page faults are exactly the pages touched.
 * At exit each rank prints the thread CPU time (CLOCK_THREAD_CPUTIME_ID)
 * of its visits' work, the ground truth of their perf::TASK-CLOCK:
 * "pass_app cpu rank=R pass=P ns=N" (P: TALLY_PASS_INDEX, or -). */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tally.h"

/* Not instrumented: ASan's shadow of the mapping would fault too. */
__attribute__((no_sanitize_address)) static void touch(long pages, long psz)
{
	char *m = mmap(NULL, (size_t)(pages * psz), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	madvise(m, (size_t)(pages * psz), MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		((volatile char *)m)[i * psz] = (char)i;
	munmap(m, (size_t)(pages * psz));
}

static long long thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	long long cpu = 0;
	int rank = 0;
	int visits = argc > 1 ? atoi(argv[1]) : 12;
	long pages = argc > 2 ? atol(argv[2]) : 64, psz = sysconf(_SC_PAGESIZE);
	int mpi = !(argc > 3 && !strcmp(argv[3], "serial"));
	const char *pass = getenv("TALLY_PASS_INDEX");

	if (argc > 3 && !strcmp(argv[3], "vary") && pass)
		visits += atoi(pass);

	if (mpi) {
		MPI_Init(&argc, &argv);
		MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	}
	for (int k = 0; k < visits; k++) {
		tally_region_begin("step");
		long long t0 = thread_cpu_ns();
		touch(pages, psz);
		cpu += thread_cpu_ns() - t0;
		tally_region_end("step");
		if (mpi)
			MPI_Barrier(MPI_COMM_WORLD);
	}
	printf("pass_app cpu rank=%d pass=%s ns=%lld\n", rank, pass ? pass : "-", cpu);
	if (mpi)
		MPI_Finalize();
	return 0;
}
