/*
 * rt_log.c - the runtime's messages: one line each on stderr, prefixed
 * "tally:" and the rank when known, filtered by TALLY_VERBOSE.  Messages
 * about the whole job are said by its first process only.
 */
#include "runtime/rt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "tally_shared.h"

static void say(int level, const char *fmt, va_list ap)
{
	/* read here: messages come before the settings are loaded */
	const char *v = tly_setting_raw(TLY_SET_verbose);
	int verbose = v && *v >= '0' && *v <= '9' ? atoi(v) : 1;
	struct tly_rt_proc *p = tly_rt_proc();
	char msg[1024];

	if (level > verbose)
		return;
	vsnprintf(msg, sizeof msg, fmt, ap);
	if (p && (p->in_mpi_job || p->job.known))
		fprintf(stderr, "tally[rank %d]: %s\n", p->rank, msg);
	else
		fprintf(stderr, "tally: %s\n", msg);
}

void tly_rt_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(level, fmt, ap);
	va_end(ap);
}

void tly_rt_log_job(int level, const char *fmt, ...)
{
	struct tly_rt_proc *p = tly_rt_proc();
	va_list ap;

	if (p && p->rank != 0)
		return;
	va_start(ap, fmt);
	say(level, fmt, ap);
	va_end(ap);
}
