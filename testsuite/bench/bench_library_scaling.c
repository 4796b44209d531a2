/*
 * bench_library_scaling.c - costs that must grow no faster than the work,
 * in the library alone (no tally-run): distinct PAPI_hl regions (one
 * begin+end each; 80,000 took 8.9 s when the lookup had 64 fixed
 * buckets), and PAPI_start+PAPI_stop of each of N event sets (one
 * perf::TASK-CLOCK each; 16,000 sets took 62.6 s).  Each size runs in a
 * fresh process; the time per item at the small size is the baseline of
 * the same run, and the large size must stay within 2x of it.  The floor
 * (formatting the names alone) is printed for scale; each figure is the
 * least of 7 runs, the sizes interleaved.
 * Time is the process's own: wall time less its run-queue wait (th_own_ns).
 * With the plain wall clock at load 12-19 on 2 cores a 10^3 run (2-3 ms)
 * fits in one time slice and a 10^5 run does not, so the ratio measured
 * the machine's load: regions 3.06x by the wall clock while their CPU time
 * per region was within 1.05-1.2x (wall = CPU at 10^3, 3-6x CPU at 10^5).
 *   bench_library_scaling              all, ratios, exit 1 past 2x
 *   bench_library_scaling regions|sets N   one measurement (ns per item)
 * NVTX string registration has its own: bench_nvtx_strings.c.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "papi.h"

#include "th_clock.h"

#define RUNS 7   /* fresh processes per size, interleaved; the least is kept */

/* ns per distinct region: begin+end of N names once each. */
static double regions(long n)
{
	char name[48];
	struct th_clock t0;

	/* the thread's first region starts its event set: not a region's cost */
	if (PAPI_hl_region_begin("warm-up") != PAPI_OK || PAPI_hl_region_end("warm-up") != PAPI_OK)
		return -1;
	t0 = th_own_begin();
	for (long i = 0; i < n; i++) {
		snprintf(name, sizeof name, "region-%ld", i);
		if (PAPI_hl_region_begin(name) != PAPI_OK || PAPI_hl_region_end(name) != PAPI_OK)
			return -1;
	}
	return th_own_ns(&t0) / (double)n;
}

/* ns per event set: PAPI_start+PAPI_stop of each of N sets once. */
static double sets(long n)
{
	int *es = calloc((size_t)n, sizeof *es);
	long long v;
	struct th_clock t0;
	struct rlimit rl;

	if (!es || PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		return -1;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;   /* one perf descriptor per set */
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	for (long i = 0; i < n; i++) {
		es[i] = PAPI_NULL;
		if (PAPI_create_eventset(&es[i]) != PAPI_OK || PAPI_add_named_event(es[i], "perf::TASK-CLOCK") != PAPI_OK)
			return -2;
	}
	t0 = th_own_begin();
	for (long i = 0; i < n; i++)
		if (PAPI_start(es[i]) != PAPI_OK || PAPI_stop(es[i], &v) != PAPI_OK)
			return -1;
	return th_own_ns(&t0) / (double)n;
}

static double floor_ns(long n)
{
	char name[48];
	volatile int sink = 0;
	struct th_clock t0 = th_own_begin();

	for (long i = 0; i < n; i++)
		sink += snprintf(name, sizeof name, "region-%ld", i);
	(void)sink;
	return th_own_ns(&t0) / (double)n;
}

/* One measurement in a fresh process: ns per item, < 0 on failure. */
static double measure(const char *self, const char *what, long n)
{
	char arg[32], out[64] = "";
	int fd[2], status;
	pid_t pid;
	ssize_t got;

	snprintf(arg, sizeof arg, "%ld", n);
	if (pipe(fd) != 0 || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		dup2(fd[1], 1);
		execl(self, self, what, arg, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	got = read(fd[0], out, sizeof out - 1);
	close(fd[0]);
	waitpid(pid, &status, 0);
	return got > 0 && WIFEXITED(status) && !WEXITSTATUS(status) ? atof(out) : -1;
}


static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);

	for (struct dirent *e; d && (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

int main(int argc, char **argv)
{
	static const struct { const char *what; long small, large; } rows[] = {
		{ "regions", 1000, 100000 }, { "sets", 1000, 10000 },
	};
	char dir[] = "/tmp/tally-bench-XXXXXX";
	int fail = 0;

	if (argc == 3) {   /* the child: one measurement */
		long n = atol(argv[2]);
		double ns = !strcmp(argv[1], "regions") ? regions(n) : !strcmp(argv[1], "sets") ? sets(n) : -1;

		printf("%.1f\n", ns);
		return ns < 0;
	}
	if (!mkdtemp(dir))
		return 1;
	setenv("TALLY_OUTPUT_DIR", dir, 1);   /* the PAPI_hl summaries, removed below */
	printf("floor (format a name): %.1f ns\n", floor_ns(100000));
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		double a = -1, b = -1;

		/* interleaved, so a change of the machine's load hits both sizes */
		for (int r = 0; r < RUNS; r++) {
			double x = measure(argv[0], rows[i].what, rows[i].small);
			double y = measure(argv[0], rows[i].what, rows[i].large);

			if (x < 0 || y < 0) {
				a = b = -1;
				break;
			}
			a = a < 0 || x < a ? x : a;
			b = b < 0 || y < b ? y : b;
		}

		if (a <= 0 || b <= 0) {
			printf("%-8s FAILED to measure (%.1f, %.1f)\n", rows[i].what, a, b);
			fail = 1;
			continue;
		}
		printf("%-8s %7ld: %9.1f ns each   %7ld: %9.1f ns each   ratio %.2f %s\n", rows[i].what, rows[i].small,
		       a, rows[i].large, b, b / a, b / a <= 2.0 ? "(linear within 2x)" : "FAILED: grows faster than the work");
		fail |= b / a > 2.0;
	}
	remove_dir(dir);
	return fail;
}
