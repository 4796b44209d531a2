/*
 * papi_attach_mpx.c - attaching sets to other threads or CPUs, and the
 * multiplexing switches.
 *
 * Attach is real: perf_event counts another thread when opened with its
 * tid (or a CPU with PAPI_CPU_ATTACH).  Multiplexing is an option of the
 * set's control state: the component scales the counts and, with
 * PAPI_MULTIPLEX_FORCE_SW or over its counter budget, rotates them itself
 * (docs/multiplex-overflow.md).  tally_multiplex_coverage reports how
 * much of the time each event was really counted.
 */
#include "papi.h"

#include <pthread.h>
#include <stdatomic.h>

#include "api/api_common.h"
#include "api/options_state.h"
#include "core/part.h"
#include "tally.h"

static atomic_int mpx_inited;

static int change_target(int id, long tid, int cpu, int flag, int on)
{
	struct tly_evset *es;
	struct tly_ctl_opts old;
	int rc = tly_api_stopped_set(id, &es);

	if (rc != PAPI_OK)
		return rc;
	if (on && (es->state & (PAPI_ATTACHED | PAPI_CPU_ATTACHED)))
		return tly_err_set(PAPI_EINVAL, "event set %d is already attached; detach it first", id);
	if (!on && !(es->state & flag))
		return tly_err_set(PAPI_EINVAL, "event set %d is not attached", id);
	old = es->opts;
	es->opts.attach_tid = tid;
	es->opts.cpu = cpu;
	if (flag == PAPI_CPU_ATTACHED)
		es->opts.granularity = on ? PAPI_GRN_SYS : old.granularity;
	rc = tly_evset_apply_opts(es);
	if (rc != PAPI_OK) {
		es->opts = old;
		tly_evset_apply_opts(es);
		return rc;
	}
	es->state = on ? es->state | flag : es->state & ~flag;
	return PAPI_OK;
}

int PAPI_attach(int EventSet, unsigned long tid)
{
	if (tid == 0)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "tid 0 is not a thread"));
	return TLY_RET(change_target(EventSet, (long)tid, -1, PAPI_ATTACHED, 1));
}

int PAPI_detach(int EventSet)
{
	return TLY_RET(change_target(EventSet, 0, -1, PAPI_ATTACHED, 0));
}

int tly_cpu_attach(int EventSet, unsigned int cpu)
{
	if (cpu > 0x7fffffff)
		return tly_err_set(PAPI_EINVAL, "cpu %u is not valid", cpu);
	return change_target(EventSet, -1, (int)cpu, PAPI_CPU_ATTACHED, 1);
}

int PAPI_multiplex_init(void)
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	atomic_store(&mpx_inited, 1);
	return PAPI_OK;
}

int tly_set_multiplex_opt(const PAPI_multiplex_option_t *mpx)
{
	struct tly_evset *es;
	int rc = tly_api_set(mpx->eventset, &es);

	if (rc != PAPI_OK)
		return rc;
	if (mpx->flags & ~PAPI_MULTIPLEX_FORCE_SW)
		return tly_err_set(PAPI_EINVAL, "multiplex flags 0x%x are not valid", (unsigned)mpx->flags);
	if (es->state & PAPI_RUNNING)
		return tly_err_set(PAPI_EISRUN, "event set %d is running; stop it first", mpx->eventset);
	if (es->state & PAPI_MULTIPLEXING)
		return tly_err_set(PAPI_EINVAL, "event set %d is already multiplexed", mpx->eventset);
	if (es->state & (PAPI_OVERFLOWING | PAPI_PROFILING))
		return tly_err_set(PAPI_ECNFLCT, "event set %d has overflow or profiling set; "
				   "an overflowing set cannot be multiplexed", mpx->eventset);
	if (mpx->ns < 0)
		return tly_err_set(PAPI_EINVAL, "multiplex period %d ns is negative", mpx->ns);
	es->opts.multiplex = 1;
	es->opts.mpx_sw = (mpx->flags & PAPI_MULTIPLEX_FORCE_SW) != 0;
	es->opts.mpx_ns = mpx->ns > 0 ? mpx->ns : tly_opt_mpx_ns();
	rc = tly_evset_apply_opts(es);
	if (rc != PAPI_OK) {
		es->opts.multiplex = 0;
		es->opts.mpx_sw = 0;
		return rc;
	}
	es->state |= PAPI_MULTIPLEXING;
	return PAPI_OK;
}

int PAPI_set_multiplex(int EventSet)
{
	PAPI_multiplex_option_t mpx = { .eventset = EventSet, .ns = tly_opt_mpx_ns(), .flags = 0 };
	int rc = tly_lib_check();

	return TLY_RET(rc == PAPI_OK ? tly_set_multiplex_opt(&mpx) : rc);
}

int PAPI_get_multiplex(int EventSet)
{
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es);

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	return (es->state & PAPI_MULTIPLEXING) != 0;
}

int tally_multiplex_coverage(int EventSet, double *fractions)
{
	double nat[TLY_MAX_NATIVES];
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es);

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (!fractions)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "fractions must not be NULL"));
	rc = tly_parts_coverage(es, nat);
	if (rc != PAPI_OK)
		return TLY_RET(rc);
	/* a derived event is only as well covered as its worst term */
	for (int i = 0; i < es->nevents; i++) {
		fractions[i] = 1.0;
		for (int t = 0; t < es->a->ev[i].nterms; t++)
			if (nat[es->a->ev[i].pos[t]] < fractions[i])
				fractions[i] = nat[es->a->ev[i].pos[t]];
	}
	return PAPI_OK;
}
