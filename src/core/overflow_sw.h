/*
 * overflow_sw.h - software overflow (PAPI_OVERFLOW_FORCE_SW): a timer on
 * the owning thread's CPU time that reads the counters and compares them
 * with the thresholds (overflow_sw.c; calls part and overflow below it).
 */
#ifndef TALLY_CORE_OVERFLOW_SW_H
#define TALLY_CORE_OVERFLOW_SW_H

#include "core/evset_types.h"

/* Software overflow timer of a started set (no-op without FORCE_SW). */
int tly_ovf_sw_start(struct tly_evset *es);
void tly_ovf_sw_stop(struct tly_evset *es);
/* After the final read of a stopped set (es->a->raw): the thresholds crossed
 * since the last tick, which the tick's coarse resolution would lose. */
void tly_ovf_sw_flush(struct tly_evset *es);

#endif /* TALLY_CORE_OVERFLOW_SW_H */
