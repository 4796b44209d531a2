/*
 * rt_log.c - the runtime's messages: one line each on stderr, prefixed
 * "tally:" and the rank when known, filtered by TALLY_VERBOSE (the settings
 * table's row, as the runtime loaded it).  Messages about the whole job are
 * said by its first process only.
 */
#include "runtime/rt_log.h"
#include "runtime/rt_proc.h"

#include <stdarg.h>
#include <stdio.h>

#include "tally_shared.h"

static void say(int level, const char *fmt, va_list ap)
{
	/* the runtime's settings once loaded (rt_config.c); before, the
	 * table's parser: a malformed value (99999999999999999999999, 0x10) is
	 * the default 1 either way, and rt_config.c says why once per job */
	struct tly_rt_proc *p = tly_rt_proc();
	long long verbose = p->opt.verbose;
	char why[512], raw[1024], msg[1024];

	if (!p->opt.loaded)
		tly_setting_num(TLY_SET_verbose, &verbose, why, sizeof why);
	if (level > verbose)
		return;
	vsnprintf(raw, sizeof raw, fmt, ap);
	tly_quote(raw, msg, sizeof msg);   /* one line, whatever a name holds */
	if (p && (p->in_mpi_job || p->job.known))
		fprintf(stderr, "tally[rank %d]: %s\n", p->rank, msg);
	else
		fprintf(stderr, "tally: %s\n", msg);
}

void tly_rt_vlog(int level, const char *fmt, va_list ap)
{
	say(level, fmt, ap);
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
