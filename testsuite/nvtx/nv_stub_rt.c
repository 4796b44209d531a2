/*
 * nv_stub_rt.c - the few runtime symbols the schema registry, decoder and
 * time code use, for the schema test and the fuzz target (no counters, no
 * regions, no HDF5).  Log lines are counted, not printed, unless
 * TALLY_VERBOSE asks for them.
 */
#include "nv_stub_rt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static struct tly_rt_proc proc = { .lock = PTHREAD_MUTEX_INITIALIZER };
static int nlog;

void tly_rt_log(int level, const char *fmt, ...)
{
	va_list ap;

	(void)level;
	nlog++;
	if (!getenv("TALLY_VERBOSE"))
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int tly_nvstub_logs(void)
{
	return nlog;
}

struct tly_rt_proc *tly_rt_proc(void)
{
	return &proc;
}

_Thread_local struct tly_rt_thread *tly_rt_self_tls;
atomic_int tly_rt_dying;   /* never set: no signals here */

void tly_rt_safe_point(void)
{
}

struct tly_rt_thread *tly_rt_self_slow(void)
{
	return NULL;
}

int tly_rt_enabled(void)
{
	return 0;
}
