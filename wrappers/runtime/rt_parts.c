/*
 * rt_parts.c - calls into the optional parts of the runtime (rt_parts.h).
 */
#include "runtime/rt_parts.h"

#include <stddef.h>

#include "runtime/rt.h"
#include "rt_part_ids.h"

_Static_assert(TLY_RT_NPARTS <= TLY_RT_MAX_PARTS, "more parts than slots in struct tly_rt_thread");

int tly_rt_parts_take_events(const char **list)
{
	for (int k = 0; tly_rt_parts[k]; k++)
		if (tly_rt_parts[k]->take_events && tly_rt_parts[k]->take_events(list))
			return 1;
	return 0;
}

void tly_rt_parts_job_start(void *comm_ptr)
{
	for (int k = 0; tly_rt_parts[k]; k++)
		if (tly_rt_parts[k]->job_start)
			tly_rt_parts[k]->job_start(comm_ptr);
	for (int k = 0; tly_rt_parts[k]; k++)
		if (tly_rt_parts[k]->job_started)
			tly_rt_parts[k]->job_started(comm_ptr);
}

const struct tly_rt_sched_view *tly_rt_parts_sched(void)
{
	for (int k = 0; tly_rt_parts[k]; k++)
		if (tly_rt_parts[k]->sched)
			return tly_rt_parts[k]->sched;
	return NULL;
}

int tly_rt_parts_thread_start(struct tly_rt_thread *t)
{
	for (int k = 0; tly_rt_parts[k]; k++)
		if (tly_rt_parts[k]->thread_start && tly_rt_parts[k]->thread_start(t) != 0)
			return -1;
	return 0;
}

void tly_rt_parts_thread_free(struct tly_rt_thread *t)
{
	for (int k = 0; tly_rt_parts[k]; k++)
		if (tly_rt_parts[k]->thread_free)
			tly_rt_parts[k]->thread_free(t);
}

void tly_rt_parts_thread_stop(struct tly_rt_thread *t)
{
	for (int k = 0; tly_rt_parts[k]; k++)
		if (tly_rt_parts[k]->thread_stop)
			tly_rt_parts[k]->thread_stop(t);
}

atomic_int tly_rt_parts_watching;

void tly_rt_parts_watch_regions(void)
{
	atomic_store(&tly_rt_parts_watching, 1);
}

void tly_rt_parts_region_change(const struct tly_rt_thread *t)
{
	for (int k = 0; tly_rt_parts[k]; k++)
		if (tly_rt_parts[k]->region_change)
			tly_rt_parts[k]->region_change(t);
}
