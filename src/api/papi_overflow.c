/*
 * papi_overflow.c - PAPI_overflow, PAPI_profil, PAPI_sprofil and
 * PAPI_get_overflow_event_index: argument checks, then core/overflow.c
 * arms the counters (perf sampling, or the software timer with
 * PAPI_OVERFLOW_FORCE_SW / PAPI_PROFIL_FORCE_SW) and core/profil.c fills
 * the buckets.  Semantics: docs/multiplex-overflow.md.
 */
#include "papi.h"

#include "api/api_common.h"
#include "api/options_state.h"
#include "core/overflow.h"
#include "core/profil.h"
#include "tally.h"

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
	int rc = tly_api_stopped_set(EventSet, es), i;

	if (rc != PAPI_OK)
		return rc;
	i = tly_evset_find(*es, EventCode);
	if (i < 0)
		return tly_err_set(PAPI_ENOEVNT, "event 0x%x is not in event set %d", (unsigned)EventCode, EventSet);
	if (threshold < 0)
		return tly_err_set(PAPI_EINVAL, "threshold must not be negative");
	return i;
}

/* Period of the software-overflow timer (PAPI_DEF_ITIMER_NS). */
static long sw_period(void)
{
	PAPI_itimer_option_t it;

	tly_opt_itimer(&it);
	return it.ns > 0 ? it.ns : 10000000L;
}

int PAPI_overflow(int EventSet, int EventCode, int threshold, int flags, PAPI_overflow_handler_t handler)
{
	struct tly_evset *es;
	int i = check_target(EventSet, EventCode, threshold, &es), rc;

	if (i < 0)
		return TLY_RET(i);
	if (flags & ~(PAPI_OVERFLOW_FORCE_SW | PAPI_OVERFLOW_HARDWARE))
		return TLY_RET(tly_err_set(PAPI_EINVAL, "overflow flags 0x%x are not valid", (unsigned)flags));
	if ((flags & PAPI_OVERFLOW_FORCE_SW) && (flags & PAPI_OVERFLOW_HARDWARE))
		return TLY_RET(tly_err_set(PAPI_EINVAL, "PAPI_OVERFLOW_FORCE_SW and PAPI_OVERFLOW_HARDWARE exclude each other"));
	if (threshold > 0 && !handler)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "an overflow handler is required"));
	if (threshold > 0 && es->a->ev[i].prof)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "event 0x%x is being profiled; turn PAPI_profil off first",
					   (unsigned)EventCode));
	if (threshold == 0 && es->a->ev[i].prof)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "event 0x%x has a profile, not an overflow handler",
					   (unsigned)EventCode));
	rc = tly_ovf_arm(es, i, threshold, flags, NULL, sw_period());
	if (rc == PAPI_OK && threshold > 0)
		es->overflow_handler = handler;
	return TLY_RET(rc);
}

static int check_region(const PAPI_sprofil_t *r, int flags, int k, int n)
{
	unsigned bucket = (flags & PAPI_PROFIL_BUCKET_64) ? 8 : (flags & PAPI_PROFIL_BUCKET_32) ? 4 : 2;

	if (!r->pr_base)
		return tly_err_set(PAPI_EINVAL, "profile buffer %d is NULL", k);
	/* the catch-all bucket (profil.h) is one bucket whatever its size */
	if (k == n - 1 && tly_prof_is_catchall(r) && r->pr_size > 0)
		return PAPI_OK;
	if (r->pr_size < bucket)
		return tly_err_set(PAPI_EINVAL, "profile buffer %d holds %u bytes, less than one %u-byte bucket", k,
				   r->pr_size, bucket);
	if (r->pr_scale < TLY_PROF_SCALE_MIN || r->pr_scale > TLY_PROF_SCALE_MAX)
		return tly_err_set(PAPI_EINVAL, "profile scale 0x%x of buffer %d is outside 0x2..0x20000 "
				   "(0x10000: one bucket per 2 bytes of text)", r->pr_scale, k);
	return PAPI_OK;
}

/* Shared by PAPI_profil and PAPI_sprofil once the target is checked. */
static int profile(struct tly_evset *es, int i, const PAPI_sprofil_t *r, int n, int threshold, int flags)
{
	struct tly_prof *p;
	int rc = check_profil_flags(flags);

	if (rc != PAPI_OK)
		return rc;
	if (threshold == 0) {
		if (es->a->ev[i].overflow_threshold && !es->a->ev[i].prof)
			return tly_err_set(PAPI_EINVAL, "this event has an overflow handler, not a profile");
		return tly_ovf_arm(es, i, 0, 0, NULL, 0);
	}
	if (!r || n <= 0)
		return tly_err_set(PAPI_EINVAL, "a profile needs at least one buffer");
	for (int k = 0; k < n; k++)
		if ((rc = check_region(&r[k], flags, k, n)) != PAPI_OK)
			return rc;
	if (es->a->ev[i].overflow_threshold && !es->a->ev[i].prof)
		return tly_err_set(PAPI_EINVAL, "this event has an overflow handler; turn it off first");
	if (!(p = tly_prof_new(r, n, flags)))
		return PAPI_ENOMEM;
	return tly_ovf_arm(es, i, threshold, (flags & PAPI_PROFIL_FORCE_SW) ? PAPI_OVERFLOW_FORCE_SW : 0, p,
			   sw_period());
}

int PAPI_profil(void *buf, unsigned bufsiz, vptr_t offset, unsigned scale, int EventSet, int EventCode,
		int threshold, int flags)
{
	PAPI_sprofil_t r = { buf, bufsiz, offset, scale };
	struct tly_evset *es;
	int i = check_target(EventSet, EventCode, threshold, &es);

	if (i < 0)
		return TLY_RET(i);
	return TLY_RET(profile(es, i, &r, 1, threshold, flags));
}

int PAPI_sprofil(PAPI_sprofil_t *prof, int profcnt, int EventSet, int EventCode, int threshold, int flags)
{
	struct tly_evset *es;
	int i = check_target(EventSet, EventCode, threshold, &es);

	if (i < 0)
		return TLY_RET(i);
	return TLY_RET(profile(es, i, prof, profcnt, threshold, flags));
}

int tally_overflow_missed(int EventSet, int EventCode, long long *missed, long long *period)
{
	struct tly_evset *es;
	int rc = tly_api_set(EventSet, &es), i;
	long long m, p;

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (!missed)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "missed is required"));
	i = tly_evset_find(es, EventCode);
	if (i < 0)
		return TLY_RET(tly_err_set(PAPI_ENOEVNT, "event 0x%x is not in event set %d", (unsigned)EventCode, EventSet));
	if (!es->a->ev[i].overflow_threshold)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "event 0x%x has no overflow set", (unsigned)EventCode));
	rc = tly_ovf_account(es, i, &m, &p);
	if (rc == PAPI_OK) {
		*missed = m;
		if (period)
			*period = p;
	}
	return TLY_RET(rc);
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
		int pos = es->a->ev[i].pos[0];

		if (es->a->ev[i].overflow_threshold && pos < 64 && (overflow_vector & (1LL << pos)))
			array[n++] = i;
	}
	*number = n;
	return PAPI_OK;
}
