/*
 * papi_encode.c - PAPI_encode_events: preset mappings from a user file.
 */
#include "papi.h"

#include "core/errors.h"
#include "core/lib.h"
#include "core/presets.h"

int PAPI_encode_events(char *event_file, int replace)
{
	int rc;

	if (!event_file || !event_file[0])
		return TLY_RET(tly_err_set(PAPI_EINVAL, "PAPI_encode_events needs the path of a preset file."));
	if (replace != 0 && replace != 1)
		return TLY_RET(tly_err_set(PAPI_EINVAL,
			"PAPI_encode_events: replace must be 0 (only add missing presets) or 1, not %d.", replace));
	rc = tly_lib_check();
	if (rc != PAPI_OK)
		return TLY_RET(rc);
	/* presets change only under the library lock, like at init */
	tly_lib_lock();
	rc = tly_presets_load_file(event_file, replace);
	tly_lib_unlock();
	return TLY_RET(rc);
}
