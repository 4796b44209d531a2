/*
 * part.h - the per-component pieces of an event set (internal to core).
 *
 * An event set may hold natives of several components; each component's
 * natives form one part with its own control state.  These functions
 * drive all parts of a set in order.
 */
#ifndef TALLY_CORE_PART_H
#define TALLY_CORE_PART_H

#include "core/evset_types.h"

/* Rebuild parts from es->a->native[] (program each component's natives). */
int tly_parts_update(struct tly_evset *es);
void tly_part_free(struct tly_part *p);
int tly_parts_start(struct tly_evset *es);
int tly_parts_stop(struct tly_evset *es);
/* Raw counts of every native into es->a->raw (offsets applied). */
int tly_parts_read(struct tly_evset *es);
/* The same into `raw` (for signal handlers of the owning thread). */
int tly_parts_read_into(struct tly_evset *es, long long *raw);
/* Coverage fraction of every native (1 when not multiplexed). */
int tly_parts_coverage(struct tly_evset *es, double *fractions);
int tly_parts_reset(struct tly_evset *es);
int tly_parts_set_opts(struct tly_evset *es, const struct tly_ctl_opts *opts);
/* Default options for a new set (component defaults). */
void tly_evset_default_opts(struct tly_ctl_opts *opts, int cidx);
/* Zero the PAPI_write offsets of the natives (no-op when none set). */
void tly_evset_clear_offsets(struct tly_evset *es);

#endif /* TALLY_CORE_PART_H */
