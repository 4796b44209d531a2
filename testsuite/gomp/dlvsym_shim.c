/* dlvsym_shim.c - a tool in front of Tally that chains GOMP_parallel the
 * way tools chain versioned symbols: dlvsym(RTLD_NEXT, "GOMP_parallel",
 * "GOMP_4.0") (test gomp_dlvsym_chain).  It counts the calls it passed on
 * and writes the count to the file named by DLVSYM_SHIM_OUT at exit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static long calls;

__attribute__((visibility("default"))) void GOMP_parallel(void (*fn)(void *), void *data, unsigned n,
							  unsigned flags)
{
	static void (*next)(void (*)(void *), void *, unsigned, unsigned);

	if (!next)
		next = (void (*)(void (*)(void *), void *, unsigned, unsigned))dlvsym(RTLD_NEXT, "GOMP_parallel",
										   "GOMP_4.0");
	if (!next)
		abort();
	calls++;
	next(fn, data, n, flags);
}

__attribute__((destructor)) static void say(void)
{
	const char *out = getenv("DLVSYM_SHIM_OUT");
	FILE *f = out ? fopen(out, "w") : NULL;

	if (f) {
		Dl_info di;
		void *next = dlvsym(RTLD_NEXT, "GOMP_parallel", "GOMP_4.0");

		fprintf(f, "%ld %s\n", calls, next && dladdr(next, &di) && di.dli_fname ? di.dli_fname : "?");
		fclose(f);
	}
}
