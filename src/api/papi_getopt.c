/*
 * papi_getopt.c - PAPI_get_opt and PAPI_get_cmp_opt.
 */
#include "papi.h"

#include <string.h>

#include "api/api_common.h"
#include "api/options_state.h"
#include "core/sysinfo.h"

static int evset_opt(int option, PAPI_option_t *ptr)
{
	struct tly_evset *es;
	int id = option == PAPI_DOMAIN ? ptr->domain.eventset
		 : option == PAPI_GRANUL ? ptr->granularity.eventset
		 : option == PAPI_INHERIT ? ptr->inherit.eventset
		 : option == PAPI_MULTIPLEX ? ptr->multiplex.eventset
		 : option == PAPI_CPU_ATTACH ? ptr->cpu.eventset : ptr->attach.eventset;
	int rc = tly_evset_get(id, &es);

	if (rc != PAPI_OK)
		return rc;
	switch (option) {
	case PAPI_DOMAIN:
		ptr->domain.domain = es->opts.domain;
		return PAPI_OK;
	case PAPI_GRANUL:
		ptr->granularity.granularity = es->opts.granularity;
		return PAPI_OK;
	case PAPI_INHERIT:
		ptr->inherit.inherit = es->opts.inherit;
		return PAPI_OK;
	case PAPI_MULTIPLEX:
		ptr->multiplex.ns = es->opts.mpx_ns > 0 ? (int)es->opts.mpx_ns : tly_opt_mpx_ns();
		ptr->multiplex.flags = es->opts.mpx_sw ? PAPI_MULTIPLEX_FORCE_SW : PAPI_MULTIPLEX_DEFAULT;
		return (es->state & PAPI_MULTIPLEXING) != 0;
	case PAPI_CPU_ATTACH:
		ptr->cpu.cpu_num = (unsigned)es->opts.cpu;
		return (es->state & PAPI_CPU_ATTACHED) != 0;
	case PAPI_ATTACH:
		ptr->attach.tid = (unsigned long)es->opts.attach_tid;
		return (es->state & PAPI_ATTACHED) != 0;
	default: /* PAPI_DETACH */
		ptr->attach.tid = (unsigned long)es->opts.attach_tid;
		return (es->state & PAPI_ATTACHED) == 0;
	}
}

static int info_opt(int option, PAPI_option_t *ptr, int cidx)
{
	switch (option) {
	case PAPI_HWINFO:
		ptr->hw_info = (PAPI_hw_info_t *)tly_hw_info();
		return PAPI_OK;
	case PAPI_EXEINFO:
		ptr->exe_info = (PAPI_exe_info_t *)tly_exe_info();
		return PAPI_OK;
	case PAPI_SHLIBINFO:
		ptr->shlib_info = (PAPI_shlib_info_t *)tly_shlib_info();
		return ptr->shlib_info ? PAPI_OK : PAPI_ESYS;
	case PAPI_COMPONENTINFO:
		ptr->cmp_info = tly_cmp_info(cidx);
		return PAPI_OK;
	case PAPI_PRELOAD:
		memset(&ptr->preload, 0, sizeof ptr->preload);
		strcpy(ptr->preload.lib_preload_env, "LD_PRELOAD");
		ptr->preload.lib_preload_sep = ' ';
		strcpy(ptr->preload.lib_dir_env, "LD_LIBRARY_PATH");
		ptr->preload.lib_dir_sep = ':';
		return PAPI_OK;
	case PAPI_DEBUG:
		ptr->debug.level = tly_debug_level();
		ptr->debug.handler = tly_debug_handler();
		return PAPI_OK;
	case PAPI_DEF_MPX_NS:
	case PAPI_DEF_MPX_USEC:
		ptr->multiplex.ns = tly_opt_mpx_ns() / (option == PAPI_DEF_MPX_USEC ? 1000 : 1);
		return PAPI_OK;
	case PAPI_DEF_ITIMER:
	case PAPI_DEF_ITIMER_NS:
		tly_opt_itimer(&ptr->itimer);
		return PAPI_OK;
	default:
		return evset_opt(option, ptr);
	}
}

/* Options whose answer is the return value and need no ptr. */
static int value_opt(int option, int cidx, int *handled)
{
	const PAPI_component_info_t *info = tly_cmp_info(cidx);

	*handled = 1;
	switch (option) {
	case PAPI_LIB_VERSION:
		return PAPI_VERSION;
	case PAPI_CLOCKRATE:
		return (int)(tly_cyc_mhz() + 0.5);
	case PAPI_MAX_CPUS:
		return tly_hw_info()->totalcpus;
	case PAPI_MAX_HWCTRS:
		return info->num_cntrs;
	case PAPI_MAX_MPX_CTRS:
		return info->num_mpx_cntrs;
	case PAPI_DEFDOM:
		return info->default_domain;
	case PAPI_DEFGRN:
		return info->default_granularity;
	default:
		*handled = 0;
		return PAPI_OK;
	}
}

int PAPI_get_cmp_opt(int option, PAPI_option_t *ptr, int cidx)
{
	int handled, rc;

	if (option != PAPI_DEBUG && option != PAPI_LIB_VERSION) {
		rc = tly_lib_check();
		if (rc == PAPI_OK && (cidx < 0 || cidx >= tly_num_components))
			rc = tly_err_set(PAPI_ENOCMP, "component index %d is out of range", cidx);
		if (rc != PAPI_OK)
			return TLY_RET(rc);
	}
	if (option == PAPI_LIB_VERSION)
		return PAPI_VERSION;
	rc = value_opt(option, cidx, &handled);
	if (handled)
		return rc;
	if (option == PAPI_DATA_ADDRESS || option == PAPI_INSTR_ADDRESS)
		return TLY_RET(tly_err_set(PAPI_ECMP, "address-range qualification is not supported"));
	if (option < PAPI_DETACH || option > PAPI_INHERIT || option == 10)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "option %d is unknown", option));
	if (!ptr)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "option %d needs a PAPI_option_t", option));
	return TLY_RET(info_opt(option, ptr, cidx));
}

int PAPI_get_opt(int option, PAPI_option_t *ptr)
{
	return PAPI_get_cmp_opt(option, ptr, 0);
}
