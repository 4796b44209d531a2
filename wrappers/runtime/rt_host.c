/*
 * rt_host.c - what the writer needs of the runtime (output/out_host.h):
 * the process's record (rt_proc.c), its messages (rt_log.c) and its clock
 * (rt_clock.h).  The build lists tly_out_host_rt in generated/out_hosts.c,
 * where the writer finds it: the writer calls the runtime only through
 * this table, never by the runtime's names.
 */
#include "runtime/rt.h"
#include "runtime/rt_writer.h"

static int64_t host_now(void)
{
	return tly_rt_now();
}

const struct tly_out_host tly_out_host_rt = {
	.proc = tly_rt_proc,
	.vlog = tly_rt_vlog,
	.now = host_now,
};
