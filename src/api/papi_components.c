/*
 * papi_components.c - component discovery and control.
 */
#include "papi.h"
#include "tally.h"

#include <string.h>

#include "api/api_common.h"
#include "core/presets.h"

/* Component 0's num_preset_events, counted when the info is asked for:
 * counting resolves every preset on the counters (core/presets.c), which
 * PAPI_library_init no longer does. */
static void count_presets(void)
{
	tly_lib_lock();
	if (tly_lib_state() != PAPI_NOT_INITED)
		tly_cmp_set_preset_count(tly_presets_count_avail());
	tly_lib_unlock();
}

int PAPI_num_components(void)
{
	return tly_num_components;
}

const PAPI_component_info_t *PAPI_get_component_info(int cidx)
{
	if (tly_lib_check() != PAPI_OK)
		return NULL;
	if (cidx < 0 || cidx >= tly_num_components) {
		tly_err_set(PAPI_ENOCMP, "component index %d is out of range", cidx);
		return NULL;
	}
	/* presets are component 0's; counting them resolves them all */
	if (cidx == 0)
		count_presets();
	return tly_cmp_info(cidx);
}

const char *tally_component_name(int cidx)
{
	if (tly_lib_check() != PAPI_OK)
		return NULL;
	if (cidx < 0 || cidx >= tly_num_components) {
		tly_err_set(PAPI_ENOCMP, "component index %d is out of range", cidx);
		return NULL;
	}
	return tly_components[cidx]->name;
}

const PAPI_substrate_info_t *PAPI_get_substrate_info(void)
{
	return PAPI_get_component_info(0);
}

static int index_of(const char *name)
{
	for (int i = 0; i < tly_num_components; i++)
		if (!strcmp(tly_components[i]->name, name) || !strcmp(tly_components[i]->short_name, name))
			return i;
	return tly_err_set(PAPI_ENOCMP, "no component is named '%s'", name);
}

/* Works before PAPI_library_init: the reference's own example looks a
 * component up to disable it, which must happen before init. */
int PAPI_get_component_index(const char *name)
{
	if (!name)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "name must not be NULL"));
	return TLY_RET(index_of(name));
}

int PAPI_disable_component(int cidx)
{
	return TLY_RET(tly_lib_disable_component(cidx));
}

int PAPI_disable_component_by_name(const char *name)
{
	int cidx;

	if (!name)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "name must not be NULL"));
	if (tly_lib_state() != PAPI_NOT_INITED)
		return TLY_RET(tly_err_set(PAPI_ENOINIT, "components can only be disabled before PAPI_library_init"));
	cidx = index_of(name);
	if (cidx < 0)
		return TLY_RET(cidx);
	return PAPI_disable_component(cidx);
}

int PAPI_num_cmp_hwctrs(int cidx)
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (cidx < 0 || cidx >= tly_num_components)
		return TLY_RET(tly_err_set(PAPI_ENOCMP, "component index %d is out of range", cidx));
	return tly_cmp_info(cidx)->num_cntrs;
}

int PAPI_num_hwctrs(void)
{
	return PAPI_num_cmp_hwctrs(0);
}
