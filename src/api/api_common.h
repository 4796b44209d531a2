/*
 * api_common.h - argument checks shared by the PAPI entry points.
 */
#ifndef TALLY_API_COMMON_H
#define TALLY_API_COMMON_H

#include "papi.h"
#include "core/errors.h"
#include "core/eventset.h"
#include "core/cmp_registry.h"
#include "core/lib.h"

/* Library initialised and `id` names a set: PAPI_OK and *es, or the code. */
static inline int tly_api_set(int id, struct tly_evset **es)
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return rc;
	return tly_evset_get(id, es);
}

/* The same, for a call that needs the set stopped (PAPI_EISRUN if not). */
static inline int tly_api_stopped_set(int id, struct tly_evset **es)
{
	int rc = tly_api_set(id, es);

	if (rc == PAPI_OK && ((*es)->state & PAPI_RUNNING))
		rc = tly_err_set(PAPI_EISRUN, "event set %d is running; stop it first", id);
	return rc;
}

#endif /* TALLY_API_COMMON_H */
