/*
 * overflow.h - overflow of event-set counters: arming, dispatch to the
 * user's handler or to profile buffers, and software overflow.
 *
 * Hardware overflow (the default) asks the component to sample the
 * event's native (ctl_set_overflow); its signal handler calls
 * tly_ovf_hw_cb with the native's position as tag.  Software overflow
 * (PAPI_OVERFLOW_FORCE_SW) is a timer on the owning thread's CPU time
 * that reads the counters and compares them with the thresholds
 * (overflow_sw.c, overflow_sw.h: above this file, it calls tly_uc_pc).
 */
#ifndef TALLY_CORE_OVERFLOW_H
#define TALLY_CORE_OVERFLOW_H

#include "core/evset_types.h"

/* Arm (threshold > 0) or disarm (0) overflow of event i of a stopped set.
 * `prof` (owned by the set afterwards; NULL for a handler overflow) makes
 * it a profiling overflow; `sw_ns` is the software-overflow period. */
int tly_ovf_arm(struct tly_evset *es, int i, int threshold, int flags, struct tly_prof *prof, long sw_ns);
/* Give the components their overflow settings again after the set's
 * natives were re-programmed. */
int tly_ovf_reapply(struct tly_evset *es);
/* The component's callback (arg = the set, tag = native position). */
void tly_ovf_hw_cb(void *arg, int tag, void *pc, void *uctx);
/* Event i's overflow since the last start: crossings not delivered to
 * the handler or profile, and the sampling period in effect (software
 * overflow: 0 and the threshold). */
int tly_ovf_account(struct tly_evset *es, int i, long long *missed, long long *period);
/* Program counter of a signal's ucontext (NULL when unknown). */
void *tly_uc_pc(void *uctx);

#endif /* TALLY_CORE_OVERFLOW_H */
