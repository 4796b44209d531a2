/* reenter_shim.c - preloaded before libtally-preload.so, it interposes
 * time(), which the runtime's start-up calls.  The first call re-enters
 * the runtime from inside its own start-up, the way a counter component,
 * an OpenMP runtime starting (OMPT) or an NVTX injection can: a region
 * call and an OpenMP runtime query.  Before the fix this hung at load. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int (*name_fn)(const char *);
typedef int (*int_fn)(void);

__attribute__((visibility("default"))) time_t time(time_t *t)
{
	static atomic_int once;
	struct timespec ts;

	if (!atomic_exchange(&once, 1)) {
		if (getenv("SHIM_DEBUG")) fprintf(stderr, "shim: re-entering\n");
		name_fn b = (name_fn)dlsym(RTLD_DEFAULT, "tally_region_begin");
		name_fn e = (name_fn)dlsym(RTLD_DEFAULT, "tally_region_end");
		int_fn omp = (int_fn)dlsym(RTLD_DEFAULT, "omp_get_max_threads");

		if (b && e) {
			b("reentered");
			e("reentered");
		}
		if (omp)
			omp();
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	if (t)
		*t = ts.tv_sec;
	return ts.tv_sec;
}
