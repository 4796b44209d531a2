/*
 * region_api.c - the region calls applications make, routed into the
 * thread's region tree.
 *
 * tally_region_begin/end and PAPI_hl_region_begin/end/PAPI_hl_read/
 * PAPI_hl_stop are exported by libtally-preload.so, so under tally-run they
 * interpose the definitions in libtally.so (the preload library comes
 * first in symbol lookup).  When this process is not measured (excluded
 * program, TALLY_DISABLE, TALLY_REGIONS=0) each call is forwarded to the
 * next definition, so the application keeps libtally's behaviour.
 */
#include "runtime/rt.h"

#include <dlfcn.h>

#include "papi.h"
#include "regions/regions.h"

#define TALLY_RT_EXPORT __attribute__((visibility("default")))

typedef int (*name_fn)(const char *);
typedef int (*void_fn)(void);

static int forward(const char *sym, const char *name)
{
	name_fn next = (name_fn)dlsym(RTLD_NEXT, sym);

	return next ? next(name) : PAPI_OK;
}

static struct tly_rt_thread *region_thread(void)
{
	if (!tly_rt_enabled() || !tly_rt_proc()->opt.regions)
		return NULL;
	return tly_rt_self();
}

/* A region's begin (enter 1) or end by name in the calling thread; the
 * next library's function of that name when the runtime does not measure. */
static int mark(const char *sym, const char *name, int enter)
{
	struct tly_rt_thread *t;

	if (!name || !*name)
		return PAPI_EINVAL;
	t = region_thread();
	if (!t)
		return forward(sym, name);
	/* TALLY_REGION_COUNTERS=0: time and visits only, no counter read */
	if (enter)
		return tly_rt_enter(t, name, TLY_RK_USER, tly_rt_proc()->opt.region_counters) ? PAPI_ENOMEM : PAPI_OK;
	return tly_rt_exit_named(t, name) == 0 ? PAPI_OK : PAPI_EINVAL;
}

TALLY_RT_EXPORT int tally_region_begin(const char *name)
{
	return mark("tally_region_begin", name, 1);
}

TALLY_RT_EXPORT int tally_region_end(const char *name)
{
	return mark("tally_region_end", name, 0);
}

TALLY_RT_EXPORT int PAPI_hl_region_begin(const char *name)
{
	return mark("PAPI_hl_region_begin", name, 1);
}

TALLY_RT_EXPORT int PAPI_hl_region_end(const char *name)
{
	return mark("PAPI_hl_region_end", name, 0);
}

/* Values go to the job file at the end; an intermediate read has nothing
 * to print under the runtime. */
TALLY_RT_EXPORT int PAPI_hl_read(const char *name)
{
	if (!region_thread())
		return forward("PAPI_hl_read", name);
	return name && *name ? PAPI_OK : PAPI_EINVAL;
}

TALLY_RT_EXPORT int PAPI_hl_stop(void)
{
	void_fn next;

	if (region_thread())
		return PAPI_OK;
	next = (void_fn)dlsym(RTLD_NEXT, "PAPI_hl_stop");
	return next ? next() : PAPI_OK;
}
