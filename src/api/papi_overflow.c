/*
 * papi_overflow.c - PAPI_overflow, PAPI_profil, PAPI_sprofil and
 * PAPI_get_overflow_event_index: argument checking and bookkeeping.
 *
 * Delivering overflow signals and filling profile buffers is the work of
 * the multiplexing/overflow issue; until then a valid request to arm an
 * overflow or profile returns PAPI_ECMP with a detail saying so, and
 * turning one off (threshold 0) works.
 */
#include "papi.h"

#include "api/api_common.h"

#define PROFIL_FLAGS (PAPI_PROFIL_POSIX | PAPI_PROFIL_RANDOM | PAPI_PROFIL_WEIGHTED | PAPI_PROFIL_COMPRESS | \
		      PAPI_PROFIL_BUCKETS | PAPI_PROFIL_FORCE_SW | PAPI_PROFIL_DATA_EAR | PAPI_PROFIL_INST_EAR)

static int check_profil_flags(int flags)
{
	int buckets = flags & PAPI_PROFIL_BUCKETS;

	if (flags & ~PROFIL_FLAGS)
		return tly_err_set(PAPI_EINVAL, "profil flags 0x%x are not valid", (unsigned)flags);
	if (buckets && (buckets & (buckets - 1)))
		return tly_err_set(PAPI_EINVAL, "choose one of PAPI_PROFIL_BUCKET_16/32/64");
	return PAPI_OK;
}

/* Common checks: initialised, set exists and is stopped, event in set,
 * threshold sane.  Returns the event's index in the set. */
static int check_target(int EventSet, int EventCode, int threshold, struct tly_evset **es)
{
	int rc = tly_api_set(EventSet, es), i;

	if (rc != PAPI_OK)
		return rc;
	if ((*es)->state & PAPI_RUNNING)
		return tly_err_set(PAPI_EISRUN, "event set %d is running; stop it first", EventSet);
	i = tly_evset_find(*es, EventCode);
	if (i < 0)
		return tly_err_set(PAPI_ENOEVNT, "event 0x%x is not in event set %d", (unsigned)EventCode, EventSet);
	if (threshold < 0)
		return tly_err_set(PAPI_EINVAL, "threshold must not be negative");
	return i;
}

static int arm(struct tly_evset *es, int i, int threshold, int flag)
{
	if (threshold == 0) {
		if (!es->ev[i].overflow_threshold)
			return tly_err_set(PAPI_EINVAL, "no overflow is set on this event");
		es->ev[i].overflow_threshold = 0;
		int any = 0;

		for (int k = 0; k < es->nevents; k++)
			any |= es->ev[k].overflow_threshold != 0;
		if (!any)
			es->state &= ~flag;
		return PAPI_OK;
	}
	if (es->ev[i].preset && es->ev[i].derived != TLY_NOT_DERIVED)
		return tly_err_set(PAPI_EINVAL, "overflow cannot be set on a derived event");
	return tly_err_set(PAPI_ECMP, "overflow sampling is not available in this build of Tally yet");
}

int PAPI_overflow(int EventSet, int EventCode, int threshold, int flags, PAPI_overflow_handler_t handler)
{
	struct tly_evset *es;
	int i = check_target(EventSet, EventCode, threshold, &es);

	if (i < 0)
		return TLY_RET(i);
	if (flags & ~(PAPI_OVERFLOW_FORCE_SW | PAPI_OVERFLOW_HARDWARE))
		return TLY_RET(tly_err_set(PAPI_EINVAL, "overflow flags 0x%x are not valid", (unsigned)flags));
	if (threshold > 0 && !handler)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "an overflow handler is required"));
	return TLY_RET(arm(es, i, threshold, PAPI_OVERFLOWING));
}

int PAPI_profil(void *buf, unsigned bufsiz, vptr_t offset, unsigned scale, int EventSet, int EventCode,
		int threshold, int flags)
{
	struct tly_evset *es;
	int i = check_target(EventSet, EventCode, threshold, &es);

	(void)offset;
	if (i < 0)
		return TLY_RET(i);
	if (check_profil_flags(flags) != PAPI_OK)
		return TLY_RET(PAPI_EINVAL);
	if (threshold > 0 && (!buf || bufsiz == 0))
		return TLY_RET(tly_err_set(PAPI_EINVAL, "a profile buffer is required"));
	if (threshold > 0 && (scale == 0 || scale > 0x10000 || scale < 2))
		return TLY_RET(tly_err_set(PAPI_EINVAL, "scale must be in 2..65536 (0x10000 maps 1:1)"));
	return TLY_RET(arm(es, i, threshold, PAPI_PROFILING));
}

int PAPI_sprofil(PAPI_sprofil_t *prof, int profcnt, int EventSet, int EventCode, int threshold, int flags)
{
	struct tly_evset *es;
	int i = check_target(EventSet, EventCode, threshold, &es);

	if (i < 0)
		return TLY_RET(i);
	if (check_profil_flags(flags) != PAPI_OK)
		return TLY_RET(PAPI_EINVAL);
	if (threshold > 0 && (!prof || profcnt <= 0))
		return TLY_RET(tly_err_set(PAPI_EINVAL, "sprofil needs at least one profile buffer"));
	for (int k = 0; threshold > 0 && k < profcnt; k++)
		if (!prof[k].pr_base || !prof[k].pr_size || prof[k].pr_scale < 2 || prof[k].pr_scale > 0x10000)
			return TLY_RET(tly_err_set(PAPI_EINVAL, "profile buffer %d is not valid", k));
	return TLY_RET(arm(es, i, threshold, PAPI_PROFILING));
}

int PAPI_get_overflow_event_index(int EventSet, long long overflow_vector, int *array, int *number)
{
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es), n = 0;

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (!array || !number || *number <= 0 || overflow_vector == 0)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "array, number and a nonzero overflow vector are required"));
	for (int i = 0; i < es->nevents && n < *number; i++) {
		int pos = es->ev[i].pos[0];

		if (es->ev[i].overflow_threshold && pos < 64 && (overflow_vector & (1LL << pos)))
			array[n++] = i;
	}
	*number = n;
	return PAPI_OK;
}
