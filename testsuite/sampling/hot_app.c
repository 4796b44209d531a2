/*
 * hot_app.c - a program with known hot spots for call-path sampling,
 * built -O2 without frame pointers: 60% of its CPU time in hot_inline
 * (static inline, inlined into run_work), 30% in hot_lib (a shared
 * library), 10% in hot_fortran (Fortran).  The same loop in each; its
 * cost per iteration is measured first on the thread's CPU clock, so the
 * split is of CPU time whatever the machine's load.
 *
 * hot_app [SECONDS] [mode]   mode: "work" (default), "malloc" (the same
 * work with malloc/free between the pieces, so samples land in the
 * allocator), "fork" (a forked child does the work too, then the parent),
 * "omp" (two OpenMP threads share the work, called through omp_share,
 * inlined into the parallel region's outlined body; hot_app.txt then has
 * the maps of Tally's library made again, private and writable, by a
 * reader of its ELF: remapped()), "block" (the first half of
 * the work with Tally's sampling signal, SIGRTMIN+4, blocked: the perf
 * source's credit holds at most 64 of its signals queued; hot_app.txt
 * then has the user's queued signals (SigQ) just before the unblocking).
 *
 * Built with HOT_MPI (samp_hot_mpi): an MPI program whose rank r does
 * (r + 1) x SECONDS of the work, writes hot_app.rank<r>.txt, meets the
 * others at a barrier and ends by SIGTERM: each rank leaves a partial file
 * of its own (the reader merges them).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef HOT_MPI
#include <mpi.h>
#endif

double hot_lib(long n, double x);
void hot_fortran(long n, double *x);

static inline __attribute__((always_inline)) double hot_inline(long n, double x)
{
	for (long i = 0; i < n; i++) {   /* HOT_INLINE_LOOP */
		x = x * 1.0000001 + 1e-9;     /* HOT_INLINE_BODY */
		x = x > 2.0 ? x - 1.0 : x;
	}
	return x;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile double sink;
static double work_cpu;   /* CPU seconds inside run_work (the calibration too) */

/* Iterations per CPU second of each piece (0 inline, 1 library, 2 Fortran). */
static void calibrate(double *rate)
{
	const long n = 2000000;

	for (int k = 0; k < 3; k++) {
		double x = 1.0, t0 = cpu_s(), t;

		if (k == 0)
			x = hot_inline(n, x);
		else if (k == 1)
			x = hot_lib(n, x);
		else
			hot_fortran(n, &x);
		t = cpu_s() - t0;
		sink += x;
		rate[k] = n / (t > 1e-6 ? t : 1e-6);
	}
}

static __attribute__((noinline)) void run_work(double seconds, int with_malloc, double *spent)
{
	static const double share[3] = { 0.6, 0.3, 0.1 };
	double rate[3], x = 1.0, t;
	/* pieces of tens of the kernel's ticks: a CPU-clock timer fires at
	 * ticks, and phases shorter than a few ticks alias (docs/sampling.md) */
	const int pieces = 5;
	double t_in = cpu_s();

	calibrate(rate);
	for (int p = 0; p < pieces; p++) {
		long n[3];

		for (int k = 0; k < 3; k++)
			n[k] = (long)(rate[k] * seconds * share[k] / pieces);
		t = cpu_s();
		x = hot_inline(n[0], x);
		spent[0] += cpu_s() - t;
		t = cpu_s();
		x = hot_lib(n[1], x);
		spent[1] += cpu_s() - t;
		t = cpu_s();
		hot_fortran(n[2], &x);
		spent[2] += cpu_s() - t;
		if (with_malloc)
			for (int i = 0; i < 20000; i++) {
				char *m = malloc((size_t)(16 + i % 4096));

				if (m)
					m[0] = (char)i;
				sink += m ? m[0] : 0;
				free(m);
			}
	}
	sink += x;
	work_cpu += cpu_s() - t_in;
}

/* The ground truth: CPU seconds in each hot spot, on the threads' clocks,
 * and the CPU time inside run_work (the one-thread modes). */
static void write_truth(const char *name, const double *spent)
{
	FILE *f = fopen(name, "w");

	if (f) {
		fprintf(f, "hot_inline %.9f\nhot_lib %.9f\nhot_fortran %.9f\nwork_cpu %.9f\n", spent[0], spent[1],
			spent[2], work_cpu);
		fclose(f);
	}
}

/* The real user's queued signals (/proc/self/status SigQ), -1 unknown. */
static long sig_queued(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long q = -1;

	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "SigQ:", 5))
			q = atol(line + 5);
	if (f)
		fclose(f);
	return q;
}

/* Half the work with the sampling signal blocked: its samples are
 * delivered when it is let in, all at the unblocking call. */
static __attribute__((noinline)) long blocked_work(double seconds, double *spent)
{
	sigset_t set, old;
	long q;

	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 4);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	run_work(seconds, 0, spent);
	q = sig_queued();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return q;
}

/* Private writable maps from offset 0 of Tally's library, which the
 * process also runs code from: the copy a reader of its ELF maps
 * (libelf's ELF_C_READ_MMAP_PRIVATE).  Tally reads its own ELF, which the
 * unwinding of its OpenMP trampoline needs, without mapping it: `perf
 * record --call-graph dwarf` of the program took such a map for the
 * library's and stopped unwinding there (rt_debuginfo.c).  Each one is
 * printed. */
static int remapped(void)
{
	char line[4096], perms[8], path[1024];
	unsigned long off, ino;
	int exec = 0, n = 0;
	FILE *f;

	for (int pass = 0; pass < 2; pass++) {
		if (!(f = fopen("/proc/self/maps", "r")))
			break;
		while (fgets(line, sizeof line, f)) {
			const char *base;

			path[0] = 0;
			if (sscanf(line, "%*s %7s %lx %*s %lu %1023s", perms, &off, &ino, path) < 3 || !ino || !path[0])
				continue;
			base = strrchr(path, '/');
			if (strcmp(base ? base + 1 : path, "libtally-preload.so"))
				continue;
			if (pass == 0 && perms[2] == 'x')
				exec = 1;
			if (pass == 1 && exec && off == 0 && !strcmp(perms, "rw-p")) {
				fprintf(stderr, "hot_app: mapped again, private and writable: %s", line);
				n++;
			}
		}
		fclose(f);
	}
	return n;
}

/* A thread's share of the "omp" mode: inlined into main._omp_fn.0, so
 * its frame is an inlined instance inside an outlined OpenMP body. */
static inline __attribute__((always_inline)) void omp_share(double seconds, double *spent)
{
	double mine[3] = { 0, 0, 0 };

	run_work(seconds, 0, mine);
#pragma omp critical
	for (int k = 0; k < 3; k++)
		spent[k] += mine[k];
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.5;
	const char *mode = argc > 2 ? argv[2] : "work";
	double spent[3] = { 0, 0, 0 };

#ifdef HOT_MPI
	int rank = 0;
	char name[64];

	(void)mode;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	run_work(seconds * (rank + 1), 0, spent);
	snprintf(name, sizeof name, "hot_app.rank%d.txt", rank);
	write_truth(name, spent);
	MPI_Barrier(MPI_COMM_WORLD);
	/* killed here, as a job at its time limit: never at MPI_Finalize, where
	 * the signal's partial file and Finalize's job file would race (either
	 * is right; the test wants the partial files) */
	raise(SIGTERM);
	for (;;)
		pause();
#endif
	if (!strcmp(mode, "omp")) {   /* two OpenMP threads, each the whole split */
		FILE *f;

#pragma omp parallel num_threads(2)
		omp_share(seconds, spent);
		write_truth("hot_app.txt", spent);
		if ((f = fopen("hot_app.txt", "a"))) {
			fprintf(f, "remapped %d\n", remapped());
			fclose(f);
		}
		return 0;
	}
	if (!strcmp(mode, "fork")) {
		pid_t c = fork();
		int st = 0;

		if (c == 0) {
			run_work(seconds / 4, 1, spent);
			_exit(0);
		}
		run_work(seconds, 0, spent);
		write_truth("hot_app.txt", spent);
		if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "hot_app: the forked child failed (status %d)\n", st);
			return 1;
		}
		return 0;
	}
	if (!strcmp(mode, "block")) {
		long q = blocked_work(seconds / 2, spent);
		FILE *f;

		run_work(seconds / 2, 0, spent);
		write_truth("hot_app.txt", spent);
		if ((f = fopen("hot_app.txt", "a"))) {
			fprintf(f, "sigq %ld\n", q);
			fclose(f);
		}
		return 0;
	}
	run_work(seconds, !strcmp(mode, "malloc"), spent);
	write_truth("hot_app.txt", spent);
	printf("hot_app: done\n");
	return 0;
}
