/*
 * papi_hl_counters.c - the PAPI 3.5 high-level counter calls:
 * PAPI_num_counters, PAPI_start_counters, PAPI_read_counters,
 * PAPI_accum_counters, PAPI_stop_counters.
 *
 * Each thread has at most one high-level counter set, built on the public
 * low-level API.  Like PAPI 3.5, read and accum reset the counters, so each
 * call returns the counts since the previous high-level call.
 *
 * Interplay: the counters share the thread's high-level slot with the rate
 * calls (hl_common.h).  PAPI_start_counters while a rate call is active
 * returns PAPI_EISRUN; a rate call while the counters run returns
 * PAPI_EINVAL (PAPI's "counters already started by something else").
 * PAPI_stop_counters never stops a rate measurement and PAPI_rate_stop
 * never stops these counters.  The region API (PAPI_hl_region_*) uses its
 * own event set; PAPI runs one set per component per thread, so while the
 * thread's region set runs, PAPI_start_counters returns PAPI_EISRUN (and
 * vice versa).
 */
#include "papi.h"

#include <string.h>

#include "api/hl_common.h"
#include "core/errors.h"

/* The calling thread's counter set while TLY_HL_COUNTERS owns the slot. */
static _Thread_local struct {
	int evset;
	int nevents;
} hlc = { PAPI_NULL, 0 };

int PAPI_num_counters(void)
{
	int rc = tly_hl_init();

	if (rc != PAPI_OK)
		return rc;
	return PAPI_num_hwctrs();
}

static int build_and_start(const int *events, int n)
{
	int evset = PAPI_NULL;
	int rc = PAPI_create_eventset(&evset);

	if (rc != PAPI_OK)
		return rc;
	for (int i = 0; i < n && rc == PAPI_OK; i++)
		rc = PAPI_add_event(evset, events[i]);
	if (rc == PAPI_OK)
		rc = PAPI_start(evset);
	if (rc != PAPI_OK) {
		tly_hl_drop_eventset(&evset);
		return rc;
	}
	hlc.evset = evset;
	hlc.nevents = n;
	tly_hl_set_owner(TLY_HL_COUNTERS);
	return PAPI_OK;
}

int PAPI_start_counters(int *events, int array_len)
{
	int rc;

	if (!events || array_len <= 0)
		return tly_err_set(PAPI_EINVAL,
			"PAPI_start_counters: events must be non-NULL and array_len > 0 (got %d)",
			array_len);
	rc = tly_hl_init();
	if (rc != PAPI_OK)
		return rc;
	if (tly_hl_owner() == TLY_HL_COUNTERS)
		return tly_err_set(PAPI_EISRUN,
			"PAPI_start_counters: counters already started; call PAPI_stop_counters first");
	if (tly_hl_owner() == TLY_HL_RATE)
		return tly_err_set(PAPI_EISRUN,
			"PAPI_start_counters: a rate call is counting in this thread; call PAPI_rate_stop first");
	return build_and_start(events, array_len);
}

/* Common checks of read/accum/stop: arguments, then the thread's state. */
static int check_running(const char *fn, const long long *values, int array_len)
{
	if (!values || array_len <= 0)
		return tly_err_set(PAPI_EINVAL,
			"%s: values must be non-NULL and array_len > 0 (got %d)", fn, array_len);
	if (tly_hl_owner() != TLY_HL_COUNTERS)
		return tly_err_set(PAPI_ENOTRUN,
			"%s: counters not started; call PAPI_start_counters first", fn);
	if (array_len < hlc.nevents)
		return tly_err_set(PAPI_EINVAL,
			"%s: array_len %d is smaller than the %d events started", fn, array_len,
			hlc.nevents);
	return PAPI_OK;
}

int PAPI_read_counters(long long *values, int array_len)
{
	int rc = check_running("PAPI_read_counters", values, array_len);

	if (rc != PAPI_OK)
		return rc;
	/* PAPI_accum reads and resets in one call: nothing counted between a
	 * separate read and reset can be lost. */
	memset(values, 0, (size_t)hlc.nevents * sizeof *values);
	return PAPI_accum(hlc.evset, values);
}

int PAPI_accum_counters(long long *values, int array_len)
{
	int rc = check_running("PAPI_accum_counters", values, array_len);

	if (rc != PAPI_OK)
		return rc;
	return PAPI_accum(hlc.evset, values);
}

int PAPI_stop_counters(long long *values, int array_len)
{
	int rc = check_running("PAPI_stop_counters", values, array_len);

	if (rc != PAPI_OK)
		return rc;
	rc = PAPI_stop(hlc.evset, values);
	if (rc != PAPI_OK)
		return rc;
	tly_hl_drop_eventset(&hlc.evset);
	hlc.nevents = 0;
	tly_hl_set_owner(TLY_HL_NONE);
	return PAPI_OK;
}
