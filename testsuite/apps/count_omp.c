/* count_omp.c - counts the OpenMP parallel regions a GCC-compiled program
 * starts, for the apps tests (ground truth for Tally's OMPT regions).
 *
 * GCC compiles `#pragma omp parallel` / `!$omp parallel` into a call of
 * GOMP_parallel(fn, data, nthreads, flags).  Preloaded in front of the
 * OpenMP runtime (libgomp, or LLVM's libomp standing in for it), this
 * counts each call made by the process's initial thread under the call
 * site (module+offset of the return address, as Tally names a region's
 * code address), then tail-calls the runtime, so the runtime sees the
 * program's own return address.  Each start by the initial thread is one
 * implicit task of that thread: the visits Tally must show for it.
 *
 * At exit: $TLY_APPS_COUNT_DIR/omp.<rank>.txt, "module+0xoffset calls"
 * lines (rank from OMPI_COMM_WORLD_RANK, 0 without one), and
 * $TLY_APPS_COUNT_DIR/maps.<rank>.txt, the OpenMP runtimes mapped into the
 * process (each /proc/self/maps path whose file name starts with libgomp
 * or libomp, once): which runtime the program really ran on.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NSITES 4096

static struct {
	pthread_mutex_t lock;
	uintptr_t site[NSITES];
	long long calls[NSITES];
	int overflow;
} tab = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void count_site(uintptr_t ra)
{
	size_t h = (ra * 0x9E3779B97F4A7C15ull) >> 52;

	pthread_mutex_lock(&tab.lock);
	for (size_t i = 0; i < NSITES; i++) {
		size_t k = (h + i) % NSITES;

		if (tab.site[k] == ra || !tab.site[k]) {
			tab.site[k] = ra;
			tab.calls[k]++;
			pthread_mutex_unlock(&tab.lock);
			return;
		}
	}
	tab.overflow = 1;
	pthread_mutex_unlock(&tab.lock);
}

typedef void (*gomp_parallel_t)(void (*)(void *), void *, unsigned, unsigned);

void GOMP_parallel(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags)
{
	static gomp_parallel_t next;

	if (!next)
		next = (gomp_parallel_t)dlsym(RTLD_NEXT, "GOMP_parallel");
	if (!next) {
		fprintf(stderr, "count_omp: no OpenMP runtime below\n");
		abort();
	}
	if (gettid() == getpid())
		count_site((uintptr_t)__builtin_return_address(0));
	next(fn, data, nthreads, flags);   /* a tail call: keeps the caller's return address */
}

static void site_name(uintptr_t ra, char *buf, size_t len)
{
	Dl_info di;
	const char *mod;

	if (!dladdr((void *)ra, &di) || !di.dli_fbase) {
		snprintf(buf, len, "0x%lx", (unsigned long)ra);
		return;
	}
	mod = di.dli_fname && *di.dli_fname ? strrchr(di.dli_fname, '/') : NULL;
	mod = mod ? mod + 1 : (di.dli_fname ? di.dli_fname : "?");
	snprintf(buf, len, "%s+0x%lx", mod, (unsigned long)(ra - (uintptr_t)di.dli_fbase));
}

static void write_maps(const char *dir, const char *rank)
{
	char path[4096], line[4096], seen[8][1024];
	int nseen = 0;
	FILE *in = fopen("/proc/self/maps", "r"), *out;

	snprintf(path, sizeof path, "%s/maps.%s.txt", dir, rank);
	out = fopen(path, "wx");
	if (!in || !out) {
		perror(path);
		if (in)
			fclose(in);
		if (out)
			fclose(out);
		return;
	}
	while (fgets(line, sizeof line, in)) {
		char *file = strchr(line, '/'), *base;
		int dup = 0;

		if (!file)
			continue;
		file[strcspn(file, "\n")] = '\0';
		base = strrchr(file, '/') + 1;
		if (strncmp(base, "libgomp", 7) && strncmp(base, "libomp", 6))
			continue;
		for (int i = 0; i < nseen; i++)
			dup |= !strcmp(seen[i], file);
		if (dup || nseen == 8)
			continue;
		snprintf(seen[nseen++], sizeof seen[0], "%s", file);
		fprintf(out, "%s\n", file);
	}
	fclose(in);
	fclose(out);
}

__attribute__((destructor)) static void write_sites(void)
{
	const char *dir = getenv("TLY_APPS_COUNT_DIR"), *rank = getenv("OMPI_COMM_WORLD_RANK");
	char path[4096], name[1024];
	FILE *f;

	if (!dir || !*dir)
		return;
	write_maps(dir, rank ? rank : "0");
	snprintf(path, sizeof path, "%s/omp.%s.txt", dir, rank ? rank : "0");
	f = fopen(path, "wx");
	if (!f) {
		perror(path);
		return;
	}
	if (tab.overflow)
		fprintf(f, "overflow 1\n");
	for (size_t k = 0; k < NSITES; k++) {
		if (!tab.site[k])
			continue;
		site_name(tab.site[k], name, sizeof name);
		fprintf(f, "%s %lld\n", name, tab.calls[k]);
	}
	fclose(f);
}
