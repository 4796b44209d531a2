/*
 * papi_sysinfo.c - PAPI entry points for system information and clocks.
 */
#include "papi.h"
#include "tally.h"

#include "core/errors.h"
#include "core/lib.h"
#include "core/sysinfo.h"

const PAPI_hw_info_t *PAPI_get_hardware_info(void)
{
	if (TLY_RET(tly_lib_check()) != PAPI_OK)
		return NULL;
	return tly_hw_info();
}

const char *tally_hw_mhz_source(void)
{
	if (tly_lib_check() != PAPI_OK)
		return NULL;
	return tly_hw_mhz_source();
}

const PAPI_exe_info_t *PAPI_get_executable_info(void)
{
	if (TLY_RET(tly_lib_check()) != PAPI_OK)
		return NULL;
	return tly_exe_info();
}

const PAPI_shlib_info_t *PAPI_get_shared_lib_info(void)
{
	const PAPI_shlib_info_t *info;

	if (TLY_RET(tly_lib_check()) != PAPI_OK)
		return NULL;
	info = tly_shlib_info();
	if (!info)
		TLY_RET(PAPI_ESYS);
	return info;
}

int PAPI_get_dmem_info(PAPI_dmem_info_t *dest)
{
	int rc;

	if (!dest)
		return TLY_RET(tly_err_set(PAPI_EINVAL,
			"PAPI_get_dmem_info needs a non-NULL PAPI_dmem_info_t pointer."));
	rc = tly_lib_check();
	if (rc != PAPI_OK)
		return TLY_RET(rc);
	return TLY_RET(tly_dmem_info(dest));
}

/* Clocks work before PAPI_library_init, as in PAPI: no state checks here. */
long long PAPI_get_real_cyc(void)
{
	return tly_real_cyc();
}

long long PAPI_get_real_nsec(void)
{
	return tly_real_nsec();
}

long long PAPI_get_real_usec(void)
{
	return tly_real_nsec() / 1000;
}

long long PAPI_get_virt_cyc(void)
{
	return tly_virt_cyc();
}

long long PAPI_get_virt_nsec(void)
{
	return tly_virt_nsec();
}

long long PAPI_get_virt_usec(void)
{
	return tly_virt_nsec() / 1000;
}
