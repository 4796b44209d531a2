/*
 * ompt_tool.c - Tally as an OMPT tool (LLVM libomp).  thread_begin creates
 * the thread's record and starts its event set, thread_end folds it;
 * implicit tasks of a parallel region, worksharing loops and barrier waits
 * are regions, named "omp parallel @ function (file:line)" from the code
 * address libomp reports (runtime/rt_ompname.c, shared with the libgomp
 * entry points of gomp/; the raw address goes to regions.address).
 */
#include "regions/regions.h"
#include "runtime/rt.h"
#include "runtime/rt_srcname.h"

#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <omp-tools.h>
#include <stdio.h>

#define TALLY_RT_EXPORT __attribute__((visibility("default")))

static struct {
	ompt_start_tool_result_t result;
} ompt_state;

/* The size of the team of the calling thread's innermost implicit task
 * (0: not known), and whether the open barrier wait was left unrecorded:
 * a team of one never waits, so its waits are counted, not recorded
 * (t->waits_skipped). */
static _Thread_local struct {
	unsigned team;
	int skipping;
} ompt_thread;

/* TALLY_OMP_COUNTERS: read the counters at OpenMP region boundaries */
static int counters(void)
{
	return tly_rt_proc()->opt.omp_counters;
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t *data)
{
	(void)data;
	tly_rt_self_kind(type == ompt_thread_initial ? TLY_RT_THREAD_MAIN : TLY_RT_THREAD_OPENMP);
}

static void on_thread_end(ompt_data_t *data)
{
	struct tly_rt_thread *t = tly_rt_self();

	(void)data;
	if (t && t->kind == TLY_RT_THREAD_OPENMP)
		tly_rt_thread_stop(t);
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *par,
			      unsigned int req, int flags, const void *code)
{
	(void)task; (void)frame; (void)req; (void)flags;
	par->ptr = (void *)tly_rt_omp_name(code, TLY_RK_OMP_PARALLEL);
}

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task,
			     unsigned int n, unsigned int index, int flags)
{
	struct tly_rt_thread *t;

	(void)task; (void)n; (void)index;
	if (flags & ompt_task_initial)
		return;
	t = tly_rt_self_kind(TLY_RT_THREAD_OPENMP);
	if (!t)
		return;
	ompt_thread.team = ep == ompt_scope_begin ? n : 0;
	if (ep == ompt_scope_begin)
		tly_rt_enter(t, par && par->ptr ? (const char *)par->ptr : "omp parallel",
			     TLY_RK_OMP_PARALLEL, counters());
	else
		tly_rt_exit_kind(t, TLY_RK_OMP_PARALLEL);
}

static void on_work(ompt_work_t ws, ompt_scope_endpoint_t ep, ompt_data_t *par, ompt_data_t *task,
		    uint64_t count, const void *code)
{
	struct tly_rt_thread *t = tly_rt_self_kind(TLY_RT_THREAD_OPENMP);

	(void)par; (void)task; (void)count;
	if (!t || !(ws == ompt_work_loop || ws == ompt_work_sections || ws == ompt_work_distribute))
		return;
	if (ep == ompt_scope_begin)
		tly_rt_enter(t, tly_rt_omp_name(code, TLY_RK_OMP_LOOP), TLY_RK_OMP_LOOP, counters());
	else
		tly_rt_exit_kind(t, TLY_RK_OMP_LOOP);
}

static void on_sync_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t *par,
			 ompt_data_t *task, const void *code)
{
	struct tly_rt_thread *t = tly_rt_self_kind(TLY_RT_THREAD_OPENMP);

	(void)par; (void)task; (void)code;
	if (!t || kind == ompt_sync_region_taskwait || kind == ompt_sync_region_taskgroup
	    || kind == ompt_sync_region_reduction)
		return;
	if (ep == ompt_scope_begin && ompt_thread.team == 1) {
		ompt_thread.skipping = 1;
		t->waits_skipped++;
	} else if (ep == ompt_scope_begin) {
		tly_rt_enter(t, "omp barrier wait", TLY_RK_OMP_BARRIER, counters());
	} else if (ompt_thread.skipping) {
		ompt_thread.skipping = 0;
	} else {
		tly_rt_exit_kind(t, TLY_RK_OMP_BARRIER);
	}
}

static int tool_init(ompt_function_lookup_t lookup, int dev, ompt_data_t *data)
{
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");

	(void)dev; (void)data;
	if (!set) {
		tly_rt_log(1, "OMPT: the OpenMP runtime has no ompt_set_callback; OpenMP regions not recorded");
		return 0;
	}
	set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
	set(ompt_callback_thread_end, (ompt_callback_t)on_thread_end);
	set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
	set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
	set(ompt_callback_work, (ompt_callback_t)on_work);
	set(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_wait);
	return 1;
}

static void tool_fini(ompt_data_t *data)
{
	(void)data;
}

TALLY_RT_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime)
{
	(void)version; (void)runtime;
	if (!tly_rt_will_measure() || !tly_rt_proc()->opt.ompt)
		return NULL;
	ompt_state.result.initialize = tool_init;
	ompt_state.result.finalize = tool_fini;
	return &ompt_state.result;
}
