/*
 * rt_log.c - the runtime's messages: one line each on stderr, prefixed
 * "tally:" and the rank when known, filtered by TALLY_VERBOSE.
 */
#include "runtime/rt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void tly_rt_log(int level, const char *fmt, ...)
{
	const char *v = getenv("TALLY_VERBOSE");
	int verbose = v && *v >= '0' && *v <= '9' ? atoi(v) : 1;
	struct tly_rt_proc *p = tly_rt_proc();
	char msg[1024];
	va_list ap;

	if (level > verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (p && p->in_mpi_job)
		fprintf(stderr, "tally[rank %d]: %s\n", p->rank, msg);
	else
		fprintf(stderr, "tally: %s\n", msg);
}
