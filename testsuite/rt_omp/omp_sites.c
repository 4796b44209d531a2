/* omp_sites.c - a GCC OpenMP + MPI program with three parallel regions in
 * three functions, each entered a known number of times (ALPHA, BETA and
 * GAMMA visits per thread), for the tests of GCC OpenMP under the runtime.
 * Built with gcc -fopenmp -g (libgomp), once plainly and once with a
 * DT_RPATH to a directory holding libgomp, the way Spack links.  The line
 * of each `#pragma omp parallel` carries a SITE marker the checker reads
 * (and the call of the inlined one a CALL marker).
 * At the end it writes its own process CPU time (getrusage) to
 * omp_sites.rank<r>.cpu: the ground truth for ranks.cpu_ns; and the OpenMP
 * runtimes mapped into it (/proc/self/maps paths whose file name starts
 * with libgomp or libomp, one a line) to omp_sites.rank<r>.maps: which
 * runtime it really ran on. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#define ALPHA 7
#define BETA 5
#define GAMMA 3
#define WORK 20000000

static __attribute__((noinline)) double phase_alpha(void)
{
	double s = 0;
#pragma omp parallel for reduction(+ : s) schedule(static) /* SITE phase_alpha */
	for (int i = 0; i < WORK; i++)
		s += i * 0.5;
	return s;
}

static __attribute__((noinline)) double phase_beta(void)
{
	double s = 0;
#pragma omp parallel reduction(+ : s) /* SITE phase_beta */
	{
		for (int i = omp_get_thread_num(); i < WORK; i += omp_get_num_threads())
			s += i * 0.25;
	}
	return s;
}

/* always inlined: its region is named "gamma_body (...) in phase_gamma (...)" */
static inline __attribute__((always_inline)) double gamma_body(void)
{
	double s = 0;
#pragma omp parallel reduction(+ : s) /* SITE gamma_body */
	s += omp_get_thread_num() + 1;
	return s;
}

static __attribute__((noinline)) double phase_gamma(void)
{
	return gamma_body(); /* CALL phase_gamma */
}

static void write_cpu(int rank)
{
	struct rusage ru;
	char name[64];
	FILE *f;

	getrusage(RUSAGE_SELF, &ru);
	snprintf(name, sizeof name, "omp_sites.rank%d.cpu", rank);
	f = fopen(name, "w");
	if (f) {
		fprintf(f, "%lld\n", (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000LL
					     + (long long)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000LL);
		fclose(f);
	}
}

static void write_maps(int rank)
{
	char name[64], line[4096], seen[4096] = "";
	FILE *in = fopen("/proc/self/maps", "r"), *out;

	snprintf(name, sizeof name, "omp_sites.rank%d.maps", rank);
	out = fopen(name, "w");
	while (in && out && fgets(line, sizeof line, in)) {
		char *file = strchr(line, '/'), *base;

		if (!file)
			continue;
		file[strcspn(file, "\n")] = '\0';
		base = strrchr(file, '/') + 1;
		if ((strncmp(base, "libgomp", 7) && strncmp(base, "libomp", 6)) || strstr(seen, file)
		    || strlen(seen) + strlen(file) + 2 >= sizeof seen)
			continue;
		strcat(strcat(seen, file), "\n");
		fprintf(out, "%s\n", file);
	}
	if (in)
		fclose(in);
	if (out)
		fclose(out);
}

int main(int argc, char **argv)
{
	int rank = 0, provided;
	double s = 0;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (int i = 0; i < ALPHA; i++)
		s += phase_alpha();
	for (int i = 0; i < BETA; i++)
		s += phase_beta();
	for (int i = 0; i < GAMMA; i++)
		s += phase_gamma();
	printf("rank %d: %d threads, sum %g\n", rank, omp_get_max_threads(), s);
	write_cpu(rank);
	write_maps(rank);
	MPI_Finalize();
	return 0;
}
