/*
 * out_host.c - the writer's way to the runtime in the preload library
 * (output/out_host.h): the host the build lists (generated/out_hosts.c,
 * the runtime's tly_out_host_rt), read-only data fixed at link time, so
 * there is nothing to register and nothing to go wrong before the
 * runtime's start-up.  The writer library has its own copy of these
 * functions (h5_host.c), which call these through its host table.
 */
#include "output/out_host.h"

#include <stdarg.h>

struct tly_rt_proc *tly_out_proc(void)
{
	return tly_out_hosts[0]->proc();
}

void tly_out_vlog(int level, const char *fmt, va_list ap)
{
	tly_out_hosts[0]->vlog(level, fmt, ap);
}

void tly_out_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tly_out_hosts[0]->vlog(level, fmt, ap);
	va_end(ap);
}

int64_t tly_out_now(void)
{
	return tly_out_hosts[0]->now();
}
