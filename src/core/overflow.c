/*
 * overflow.c - arming overflow on events of a set and dispatching
 * hardware (sampled) overflows to the user's handler or a profile.
 *
 * The overflow vector has bit n set for the native at position n of the
 * set (what PAPI_get_overflow_event_index decodes).  Derived events
 * cannot overflow (no single counter); multiplexed sets cannot either
 * (PAPI_ECNFLCT), since a counter that is not always counting cannot
 * sample at a faithful rate.
 */
#include "core/overflow.h"

#include <signal.h>
#include <stdlib.h>
#include <ucontext.h>

#include "core/errors.h"
#include "core/cmp_registry.h"
#include "core/profil.h"

void *tly_uc_pc(void *uctx)
{
	const ucontext_t *uc = uctx;

	if (!uc)
		return NULL;
#if defined(__x86_64__)
	return (void *)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (void *)uc->uc_mcontext.pc;
#else
	return NULL;
#endif
}

/* Part and index in it of the native at position pos. */
static struct tly_part *locate(struct tly_evset *es, int pos, int *k)
{
	for (int p = 0; p < es->nparts; p++)
		for (int j = 0; j < es->a->part[p].n; j++)
			if (es->a->part[p].idx[j] == pos) {
				*k = j;
				return &es->a->part[p];
			}
	return NULL;
}

static int hw_set(struct tly_evset *es, int pos, long long threshold)
{
	int k;
	struct tly_part *p = locate(es, pos, &k);
	const struct tly_component *c = p ? tly_cmp(p->cidx) : NULL;

	if (!c)
		return tly_err_set(PAPI_EBUG, "native %d of event set %d has no component part", pos, es->id);
	if (!c->ctl_set_overflow)
		return tly_err_set(PAPI_ECMP, "component %s cannot sample; use PAPI_OVERFLOW_FORCE_SW", c->name);
	return c->ctl_set_overflow(p->ctl, k, threshold, pos, tly_ovf_hw_cb, es);
}

static void update_state(struct tly_evset *es)
{
	int ovf = 0, prof = 0;

	for (int i = 0; i < es->nevents; i++) {
		if (!es->a->ev[i].overflow_threshold)
			continue;
		prof |= es->a->ev[i].prof != NULL;
		ovf |= es->a->ev[i].prof == NULL;
	}
	es->state &= ~(PAPI_OVERFLOWING | PAPI_PROFILING);
	es->state |= (ovf ? PAPI_OVERFLOWING : 0) | (prof ? PAPI_PROFILING : 0);
}

static int disarm(struct tly_evset *es, struct tly_ev *ev)
{
	int rc = PAPI_OK;

	if (!ev->overflow_threshold)
		return tly_err_set(PAPI_EINVAL, "no overflow is set on this event");
	if (!ev->overflow_sw)
		rc = hw_set(es, ev->pos[0], 0);
	ev->overflow_threshold = 0;
	ev->overflow_sw = 0;
	free(ev->prof);
	ev->prof = NULL;
	update_state(es);
	return rc;
}

int tly_ovf_arm(struct tly_evset *es, int i, int threshold, int flags, struct tly_prof *prof, long sw_ns)
{
	struct tly_ev *ev = &es->a->ev[i];
	int sw = (flags & PAPI_OVERFLOW_FORCE_SW) != 0, rc = PAPI_OK;

	if (threshold == 0) {
		free(prof);
		return disarm(es, ev);
	}
	if (ev->preset && ev->derived != TLY_NOT_DERIVED)
		rc = tly_err_set(PAPI_EINVAL, "overflow cannot be set on a derived event (no single counter)");
	else if (es->state & PAPI_MULTIPLEXING)
		rc = tly_err_set(PAPI_ECNFLCT, "event set %d is multiplexed; multiplexed sets cannot overflow", es->id);
	else if (ev->overflow_threshold && !ev->overflow_sw && sw)
		rc = hw_set(es, ev->pos[0], 0);
	if (rc == PAPI_OK && !sw)
		rc = hw_set(es, ev->pos[0], threshold);
	if (rc != PAPI_OK) {
		free(prof);
		return rc;
	}
	ev->overflow_threshold = threshold;
	ev->overflow_sw = sw;
	free(ev->prof);
	ev->prof = prof;
	if (sw)
		es->ovf_sw_ns = sw_ns;
	update_state(es);
	return PAPI_OK;
}

int tly_ovf_reapply(struct tly_evset *es)
{
	for (int i = 0; i < es->nevents; i++) {
		const struct tly_ev *ev = &es->a->ev[i];
		int rc;

		if (!ev->overflow_threshold || ev->overflow_sw)
			continue;
		rc = hw_set(es, ev->pos[0], ev->overflow_threshold);
		if (rc != PAPI_OK)
			return rc;
	}
	return PAPI_OK;
}

int tly_ovf_account(struct tly_evset *es, int i, long long *missed, long long *period)
{
	const struct tly_ev *ev = &es->a->ev[i];
	struct tly_part *p;
	const struct tly_component *c;
	int k;

	*missed = ev->overflow_sw ? es->a->ovf_sw_missed[i] : 0;
	*period = ev->overflow_threshold;
	if (!ev->overflow_threshold || ev->overflow_sw)
		return PAPI_OK;
	p = locate(es, ev->pos[0], &k);
	c = p ? tly_cmp(p->cidx) : NULL;
	if (!c)
		return tly_err_set(PAPI_EBUG, "native %d of event set %d has no component part", ev->pos[0], es->id);
	return c->ctl_ovf_account ? c->ctl_ovf_account(p->ctl, k, missed, period) : PAPI_OK;
}

void tly_ovf_hw_cb(void *arg, int tag, void *pc, void *uctx)
{
	struct tly_evset *es = arg;
	int handler = 0;

	if (!pc)
		pc = tly_uc_pc(uctx);
	for (int i = 0; i < es->nevents; i++) {
		struct tly_ev *ev = &es->a->ev[i];

		if (!ev->overflow_threshold || ev->overflow_sw || ev->pos[0] != tag)
			continue;
		if (ev->prof)
			tly_prof_hit(ev->prof, pc, 1);
		else
			handler = 1;
	}
	if (handler && es->overflow_handler)
		es->overflow_handler(es->id, pc, (long long)(1ULL << tag), uctx);
}
