/*
 * papi_counting.c - start, stop, read, accumulate, reset and write.
 */
#include "papi.h"

#include <string.h>

#include "api/api_common.h"
#include "core/sysinfo.h"

int PAPI_start(int EventSet)
{
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es);

	return TLY_RET(rc == PAPI_OK ? tly_evset_start(es) : rc);
}

int PAPI_stop(int EventSet, long long *values)
{
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es);

	return TLY_RET(rc == PAPI_OK ? tly_evset_stop(es, values) : rc);
}

/* The set of EventSet, for a call whose values must not be NULL. */
static int set_with_values(int EventSet, const long long *values, struct tly_evset **es)
{
	int rc = tly_api_set(EventSet, es);

	if (rc == PAPI_OK && !values)
		rc = tly_err_set(PAPI_EINVAL, "values must not be NULL");
	return rc;
}

int PAPI_read(int EventSet, long long *values)
{
	struct tly_evset *es;
	int rc = set_with_values(EventSet, values, &es);

	return TLY_RET(rc == PAPI_OK ? tly_evset_values(es, values) : rc);
}

int PAPI_read_ts(int EventSet, long long *values, long long *cyc)
{
	int rc;

	if (!cyc)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "cyc must not be NULL"));
	rc = PAPI_read(EventSet, values);
	if (rc == PAPI_OK)
		*cyc = tly_real_cyc();
	return rc;
}

int PAPI_accum(int EventSet, long long *values)
{
	long long now[TLY_MAX_EVENTS];
	struct tly_evset *es;
	int rc = set_with_values(EventSet, values, &es);

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	rc = tly_evset_values(es, now);
	if (rc != PAPI_OK)
		return TLY_RET(rc);
	for (int i = 0; i < es->nevents; i++)
		values[i] += now[i];
	return TLY_RET(tly_evset_reset(es));
}

int PAPI_reset(int EventSet)
{
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es);

	return TLY_RET(rc == PAPI_OK ? tly_evset_reset(es) : rc);
}

int PAPI_write(int EventSet, long long *values)
{
	struct tly_evset *es;
	int rc = set_with_values(EventSet, values, &es);

	return TLY_RET(rc == PAPI_OK ? tly_evset_write(es, values) : rc);
}
