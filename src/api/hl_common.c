/*
 * hl_common.c - implicit initialisation, the per-thread owner slot and
 * warnings for the high-level APIs.
 */
#include "api/hl_common.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/lib.h"
#include "tally_shared.h"

/* Serialises implicit initialisation: two threads making their first
 * high-level call at once must not both run PAPI_library_init. */
static struct {
	pthread_mutex_t lock;
} hl_common = { PTHREAD_MUTEX_INITIALIZER };

static _Thread_local enum tly_hl_owner hl_owner;

int tly_hl_init(void)
{
	int rc = PAPI_OK;

	if (PAPI_is_initialized() != PAPI_NOT_INITED) {
		tly_lib_mark_high_level();
		return PAPI_OK;
	}
	pthread_mutex_lock(&hl_common.lock);
	if (PAPI_is_initialized() == PAPI_NOT_INITED) {
		int v = PAPI_library_init(PAPI_VER_CURRENT);
		if (v != PAPI_VER_CURRENT)
			rc = v < 0 ? v : tly_err_set(PAPI_EBUG,
				"implicit PAPI_library_init returned version %#x", (unsigned)v);
	}
	pthread_mutex_unlock(&hl_common.lock);
	if (rc == PAPI_OK)
		tly_lib_mark_high_level();
	return rc;
}

enum tly_hl_owner tly_hl_owner(void)
{
	return hl_owner;
}

void tly_hl_set_owner(enum tly_hl_owner owner)
{
	hl_owner = owner;
}

void tly_hl_drop_eventset(int *evset)
{
	int state = 0;

	if (*evset == PAPI_NULL)
		return;
	if (PAPI_state(*evset, &state) == PAPI_OK && (state & PAPI_RUNNING))
		(void)PAPI_stop(*evset, NULL);
	(void)PAPI_cleanup_eventset(*evset);
	(void)PAPI_destroy_eventset(evset);
	*evset = PAPI_NULL;
}

/* TALLY_QUIET or PAPI's PAPI_NO_WARNING: a yes/no value each (a bad one
 * is said, and warnings stay on). */
int tly_hl_quiet(void)
{
	return tly_setting_flag(TLY_SET_papi_no_warning) || tly_setting_flag(TLY_SET_quiet);
}

void tly_hl_warn(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (tly_hl_quiet())
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "tally: %s\n", msg);
}
