/*
 * papi_opts.c - PAPI_get_opt / PAPI_set_opt and their shorthands.
 */
#include "papi.h"

#include <string.h>

#include "api/api_common.h"
#include "api/options_state.h"
#include "core/sysinfo.h"

static int check_domain(int domain, int cidx)
{
	const PAPI_component_info_t *info = tly_cmp_info(cidx);

	if (domain <= 0 || (domain & ~(PAPI_DOM_ALL | PAPI_DOM_HWSPEC)))
		return tly_err_set(PAPI_EINVAL, "domain 0x%x is not a valid PAPI_DOM_* mask", (unsigned)domain);
	/* PAPI_DOM_ALL asks for every domain the component has (PAPI 7
	 * accepts it everywhere); the component counts what it can */
	if ((domain & PAPI_DOM_ALL) == PAPI_DOM_ALL)
		return PAPI_OK;
	if (info && info->available_domains && (domain & ~info->available_domains & PAPI_DOM_ALL))
		return tly_err_set(PAPI_EINVAL, "domain 0x%x is not supported by component %s (supports 0x%x)",
				   (unsigned)domain, info->name, (unsigned)info->available_domains);
	return PAPI_OK;
}

static int check_granularity(int grn, int cidx)
{
	const PAPI_component_info_t *info = tly_cmp_info(cidx);

	if (grn != PAPI_GRN_THR && grn != PAPI_GRN_PROC && grn != PAPI_GRN_PROCG && grn != PAPI_GRN_SYS &&
	    grn != PAPI_GRN_SYS_CPU)
		return tly_err_set(PAPI_EINVAL, "granularity 0x%x is not a valid PAPI_GRN_* value", (unsigned)grn);
	if (info && info->available_granularities && !(grn & info->available_granularities))
		return tly_err_set(PAPI_EINVAL, "granularity 0x%x is not supported by component %s",
				   (unsigned)grn, info->name);
	return PAPI_OK;
}

/* Change one set's options; restore them when the component refuses. */
static int set_evset_opts(int id, void (*edit)(struct tly_ctl_opts *, int), int value)
{
	struct tly_evset *es;
	struct tly_ctl_opts old;
	int rc = tly_api_stopped_set(id, &es);

	if (rc != PAPI_OK)
		return rc;
	old = es->opts;
	edit(&es->opts, value);
	rc = tly_evset_apply_opts(es);
	if (rc != PAPI_OK) {
		es->opts = old;
		tly_evset_apply_opts(es);
	}
	return rc;
}

static void edit_domain(struct tly_ctl_opts *o, int v) { o->domain = v; }
static void edit_granularity(struct tly_ctl_opts *o, int v) { o->granularity = v; }
static void edit_inherit(struct tly_ctl_opts *o, int v) { o->inherit = v; }

static int evset_cidx(int id)
{
	struct tly_evset *es;

	return tly_evset_get(id, &es) == PAPI_OK && es->cidx >= 0 ? es->cidx : 0;
}

static int set_default(int option, PAPI_option_t *ptr)
{
	int cidx = option == PAPI_DEFDOM ? ptr->defdomain.def_cidx : ptr->defgranularity.def_cidx;
	PAPI_component_info_t *info = tly_cmp_info(cidx);
	int rc;

	if (!info)
		return tly_err_set(PAPI_ENOCMP, "component index %d is out of range", cidx);
	if (option == PAPI_DEFDOM) {
		rc = check_domain(ptr->defdomain.domain, cidx);
		if (rc == PAPI_OK)
			info->default_domain = ptr->defdomain.domain;
	} else {
		rc = check_granularity(ptr->defgranularity.granularity, cidx);
		if (rc == PAPI_OK)
			info->default_granularity = ptr->defgranularity.granularity;
	}
	return rc;
}

static int set_opt_checked(int option, PAPI_option_t *ptr)
{
	switch (option) {
	case PAPI_DEBUG:
		if (ptr->debug.level < PAPI_QUIET || ptr->debug.level > PAPI_VERB_ESTOP)
			return tly_err_set(PAPI_EINVAL, "debug level %d is not valid", ptr->debug.level);
		tly_set_debug_level(ptr->debug.level, ptr->debug.handler);
		return PAPI_OK;
	case PAPI_DEFDOM:
	case PAPI_DEFGRN:
		return set_default(option, ptr);
	case PAPI_DOMAIN: {
		int rc = check_domain(ptr->domain.domain, evset_cidx(ptr->domain.eventset));

		return rc == PAPI_OK ? set_evset_opts(ptr->domain.eventset, edit_domain, ptr->domain.domain) : rc;
	}
	case PAPI_GRANUL: {
		int rc = check_granularity(ptr->granularity.granularity, evset_cidx(ptr->granularity.eventset));

		return rc == PAPI_OK ? set_evset_opts(ptr->granularity.eventset, edit_granularity,
						      ptr->granularity.granularity) : rc;
	}
	case PAPI_INHERIT:
		if (ptr->inherit.inherit != PAPI_INHERIT_ALL && ptr->inherit.inherit != PAPI_INHERIT_NONE)
			return tly_err_set(PAPI_EINVAL, "inherit must be PAPI_INHERIT_ALL or PAPI_INHERIT_NONE");
		return set_evset_opts(ptr->inherit.eventset, edit_inherit, ptr->inherit.inherit);
	case PAPI_MULTIPLEX:
		return tly_set_multiplex_opt(&ptr->multiplex);
	case PAPI_DEF_MPX_NS:
	case PAPI_DEF_MPX_USEC:
	case PAPI_DEF_ITIMER:
	case PAPI_DEF_ITIMER_NS:
		return tly_opt_set_timing(option, ptr);
	case PAPI_ATTACH:
		return PAPI_attach(ptr->attach.eventset, ptr->attach.tid);
	case PAPI_DETACH:
		return PAPI_detach(ptr->attach.eventset);
	case PAPI_CPU_ATTACH:
		return tly_cpu_attach(ptr->cpu.eventset, ptr->cpu.cpu_num);
	case PAPI_DATA_ADDRESS:
	case PAPI_INSTR_ADDRESS:
		return tly_err_set(PAPI_ECMP, "address-range qualification is not supported by perf_event counters");
	case PAPI_USER_EVENTS_FILE:
		return tly_err_set(PAPI_ENOSUPP, "user-defined events files are not supported; use PAPI_encode_events");
	default:
		return tly_err_set(PAPI_EINVAL, "option %d cannot be set (unknown or read-only)", option);
	}
}

int PAPI_set_opt(int option, PAPI_option_t *ptr)
{
	int rc;

	if (!ptr)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "ptr must not be NULL"));
	if (option != PAPI_DEBUG) {
		rc = tly_lib_check();
		if (rc != PAPI_OK)
			return TLY_RET(rc);
	}
	return TLY_RET(set_opt_checked(option, ptr));
}

int PAPI_set_domain(int domain)
{
	PAPI_option_t o = { .defdomain = { .def_cidx = 0, .domain = domain } };

	return PAPI_set_opt(PAPI_DEFDOM, &o);
}

int PAPI_set_cmp_domain(int domain, int cidx)
{
	PAPI_option_t o = { .defdomain = { .def_cidx = cidx, .domain = domain } };

	return PAPI_set_opt(PAPI_DEFDOM, &o);
}

int PAPI_set_granularity(int granularity)
{
	PAPI_option_t o = { .defgranularity = { .def_cidx = 0, .granularity = granularity } };

	return PAPI_set_opt(PAPI_DEFGRN, &o);
}

int PAPI_set_cmp_granularity(int granularity, int cidx)
{
	PAPI_option_t o = { .defgranularity = { .def_cidx = cidx, .granularity = granularity } };

	return PAPI_set_opt(PAPI_DEFGRN, &o);
}
