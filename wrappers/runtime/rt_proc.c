/*
 * rt_proc.c - the process's measurement state (struct tly_rt_proc,
 * output/out_records.h): the one object every file of the runtime reads.
 * It calls nothing, so it stands below them all; the start-up
 * (rt_state.c) fills it.
 */
#include "runtime/rt_proc.h"

static struct tly_rt_proc proc = { .lock = PTHREAD_MUTEX_INITIALIZER };

struct tly_rt_proc *tly_rt_proc(void)
{
	return &proc;
}
