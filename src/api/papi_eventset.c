/*
 * papi_eventset.c - creating event sets and changing what they hold.
 */
#include "papi.h"

#include "api/api_common.h"
#include "core/native.h"
#include "core/threads.h"

int PAPI_create_eventset(int *EventSet)
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (!EventSet || *EventSet != PAPI_NULL)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "EventSet must point to an int set to PAPI_NULL"));
	if (!tly_thread_self())
		return TLY_RET(tly_err_set(PAPI_ENOMEM, "cannot register the calling thread"));
	return TLY_RET(tly_evset_create(EventSet));
}

int PAPI_destroy_eventset(int *EventSet)
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (!EventSet)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "EventSet must not be NULL"));
	rc = tly_evset_destroy(*EventSet);
	if (rc == PAPI_OK)
		*EventSet = PAPI_NULL;
	return TLY_RET(rc);
}

int PAPI_cleanup_eventset(int EventSet)
{
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es);

	return TLY_RET(rc == PAPI_OK ? tly_evset_cleanup(es) : rc);
}

int PAPI_add_event(int EventSet, int EventCode)
{
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es);

	return TLY_RET(rc == PAPI_OK ? tly_evset_add(es, EventCode) : rc);
}

/*
 * PAPI_add_events / PAPI_remove_events: when an event fails, the events
 * before it stay added (removed) and the return value is how many those
 * were, as the reference documents; a failure on the first event returns
 * its error code.
 */
static int each_event(int EventSet, const int *Events, int number, int (*op)(struct tly_evset *, int))
{
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es);

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (!Events || number <= 0)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "Events must be a non-empty array"));
	for (int i = 0; i < number; i++) {
		rc = op(es, Events[i]);
		if (rc != PAPI_OK)
			return i ? i : TLY_RET(rc);
	}
	return PAPI_OK;
}

int PAPI_add_events(int EventSet, int *Events, int number)
{
	return each_event(EventSet, Events, number, tly_evset_add);
}

/* PAPI_add_named_event / PAPI_remove_named_event: the name's code, then
 * the call by code. */
static int named_event(int EventSet, const char *EventName, int (*op)(int, int))
{
	int code, rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (!EventName)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "EventName must not be NULL"));
	rc = PAPI_event_name_to_code(EventName, &code);
	if (rc != PAPI_OK)
		return rc;
	return op(EventSet, code);
}

int PAPI_add_named_event(int EventSet, const char *EventName)
{
	return named_event(EventSet, EventName, PAPI_add_event);
}

int PAPI_remove_event(int EventSet, int EventCode)
{
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es);

	return TLY_RET(rc == PAPI_OK ? tly_evset_remove(es, EventCode) : rc);
}

int PAPI_remove_events(int EventSet, int *Events, int number)
{
	return each_event(EventSet, Events, number, tly_evset_remove);
}

int PAPI_remove_named_event(int EventSet, const char *EventName)
{
	return named_event(EventSet, EventName, PAPI_remove_event);
}

int PAPI_list_events(int EventSet, int *Events, int *number)
{
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es);

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (!number || *number < 0 || (!Events && *number > 0))
		return TLY_RET(tly_err_set(PAPI_EINVAL, "number must point to the capacity of Events"));
	for (int i = 0; i < es->nevents && i < *number; i++)
		Events[i] = es->a->ev[i].code;
	*number = es->nevents;
	return PAPI_OK;
}

int PAPI_num_events(int EventSet)
{
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es);

	return rc == PAPI_OK ? es->nevents : TLY_RET(rc);
}

int PAPI_state(int EventSet, int *status)
{
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es);

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (!status)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "status must not be NULL"));
	*status = es->state;
	return PAPI_OK;
}

int PAPI_assign_eventset_component(int EventSet, int cidx)
{
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es);

	return TLY_RET(rc == PAPI_OK ? tly_evset_assign(es, cidx) : rc);
}

int PAPI_get_eventset_component(int EventSet)
{
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es);

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (es->cidx < 0)
		return TLY_RET(tly_err_set(PAPI_ENOCMP, "event set %d has no component yet", EventSet));
	return es->cidx;
}
