/*
 * papi_library.c - the library's entry points: PAPI_library_init,
 * PAPI_is_initialized, PAPI_shutdown.  They sit above the whole core and
 * drive it in order; nothing below calls them.
 */
#include "papi.h"

#include "api/api_common.h"
#include "core/eventset.h"
#include "core/native.h"
#include "core/presets.h"
#include "core/sysinfo.h"
#include "core/threads.h"

static int lib_init_locked(void)
{
	int rc = tly_sysinfo_init();

	if (rc != PAPI_OK)
		return rc;
	tly_cmp_init_all();
	/* Presets resolve natives and try counting them, which needs the
	 * library to look initialised. */
	tly_lib_set_state(PAPI_LOW_LEVEL_INITED);
	rc = tly_presets_init();
	if (rc != PAPI_OK)
		tly_lib_set_state(PAPI_NOT_INITED);
	return rc;   /* presets are tried on the counters at first use (core/presets.c) */
}

int PAPI_library_init(int version)
{
	int rc = PAPI_OK;

	if ((version & 0xffff0000) != PAPI_VER_CURRENT)
		return TLY_RET(tly_err_set(PAPI_EINVAL,
			"PAPI_library_init: caller built for PAPI %d.%d, library implements %d.%d",
			PAPI_VERSION_MAJOR(version), PAPI_VERSION_MINOR(version),
			PAPI_VERSION_MAJOR(PAPI_VERSION), PAPI_VERSION_MINOR(PAPI_VERSION)));
	tly_lib_lock();
	if (tly_lib_state() == PAPI_NOT_INITED) {
		rc = lib_init_locked();
		/* every machine says a malformed library setting, GPU or not (the
		 * cuda rows are otherwise read only where a GPU is) */
		tly_settings_say_library();
	}
	tly_lib_unlock();
	if (rc != PAPI_OK)
		return TLY_RET(rc);
	return PAPI_VER_CURRENT;
}

int PAPI_is_initialized(void)
{
	return tly_lib_state();
}

void PAPI_shutdown(void)
{
	tly_lib_lock();
	if (tly_lib_state() == PAPI_NOT_INITED) {
		tly_lib_unlock();
		return;
	}
	tly_evset_shutdown_all();
	tly_presets_shutdown();
	tly_native_shutdown();
	tly_cmp_shutdown_all();
	tly_threads_shutdown();
	tly_sysinfo_shutdown();
	tly_lib_set_state(PAPI_NOT_INITED);
	tly_lib_unlock();
}
