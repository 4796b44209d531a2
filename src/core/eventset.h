/*
 * eventset.h - event sets: the PAPI events a user added, the natives they
 * expand to, and the component control state that counts them.
 */
#ifndef TALLY_CORE_EVENTSET_H
#define TALLY_CORE_EVENTSET_H

#include "core/evset_types.h"
#include "core/evset_count.h" /* below eventset: counting a set */

/* Gives es arrays of its own (before writing any entry); PAPI_OK or PAPI_ENOMEM. */
int tly_evset_own_arrays(struct tly_evset *es);

/* Look up a set by id: PAPI_ENOEVST when there is none. */
int tly_evset_get(int id, struct tly_evset **out);
/* Create/destroy (id registry is locked inside). */
int tly_evset_create(int *id);
int tly_evset_destroy(int id);
int tly_evset_cleanup(struct tly_evset *es);
int tly_evset_assign(struct tly_evset *es, int cidx);
int tly_evset_add(struct tly_evset *es, int code);
int tly_evset_remove(struct tly_evset *es, int code);
/* Stop and free every set (PAPI_shutdown). */
int tly_evset_shutdown_all(void);
/* Position of event `code` in the set, or -1. */
int tly_evset_find(const struct tly_evset *es, int code);

#endif /* TALLY_CORE_EVENTSET_H */
