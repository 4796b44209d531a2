/*
 * evset_count.h - counting with an event set: start, stop, read, reset,
 * write, options, and whether natives can be counted together
 * (evset_count.c; below eventset and presets, which call it).
 */
#ifndef TALLY_CORE_EVSET_COUNT_H
#define TALLY_CORE_EVSET_COUNT_H

#include "core/evset_types.h"

/* Values of the user's events from a fresh read of the counters. */
int tly_evset_values(struct tly_evset *es, long long *values);
int tly_evset_start(struct tly_evset *es);
int tly_evset_stop(struct tly_evset *es, long long *values);
int tly_evset_reset(struct tly_evset *es);
int tly_evset_write(struct tly_evset *es, const long long *values);
/* Re-apply es->opts to the control state (domain, granularity...). */
int tly_evset_apply_opts(struct tly_evset *es);
/* Can these natives (one component) be counted together right now?
 * PAPI_OK or the component's error (detail set).  Used by presets. */
int tly_evset_try_natives(const int *codes, int n);

#endif /* TALLY_CORE_EVSET_COUNT_H */
