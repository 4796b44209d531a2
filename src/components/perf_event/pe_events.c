/*
 * pe_events.c - native events of the perf_event component, from libpfm4.
 *
 * Only PMUs the kernel can program are visible (pe_pmu_select.c decides
 * which): when the kernel has no hardware PMU (a VM without a virtual
 * PMU), libpfm4's CPUID-detected core PMU, perf_raw, uncore PMUs the
 * kernel does not expose and the hardware events of the generic "perf"
 * PMU are hidden from enumeration and rejected by lookup with a reason,
 * so nothing is listed that could never count.
 */
#include "pe_internal.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <perfmon/pfmlib_perf_event.h>

#include "services/err_detail.h"

#define TOK_EVENT(t) ((int)((t) & 0xffffffffu))
#define TOK_UMASK(t) ((int)(((t) >> 32) & 0xffffu))
#define TOK_MAKE(ev, um) ((uint64_t)(uint32_t)(ev) | ((uint64_t)(um) << 32))
/* bit 48: one of the kernel's software events of pe_swevents.c (index in
 * bits 0..31), offered only when libpfm4 names none */
#define TOK_SWBIT (1ULL << 48)
#define TOK_IS_SW(t) (((t) & TOK_SWBIT) != 0)

static int event_info(int idx, pfm_event_info_t *ei)
{
	memset(ei, 0, sizeof *ei);
	ei->size = sizeof *ei;
	return pfm_get_event_info(idx, PFM_OS_PERF_EVENT_EXT, ei) == PFM_SUCCESS ? PAPI_OK : PAPI_ENOEVNT;
}

static int attr_info(int idx, int aidx, pfm_event_attr_info_t *ai)
{
	memset(ai, 0, sizeof *ai);
	ai->size = sizeof *ai;
	return pfm_get_event_attr_info(idx, aidx, PFM_OS_PERF_EVENT_EXT, ai) == PFM_SUCCESS ? PAPI_OK : PAPI_ENOEVNT;
}

static int pmu_info(int pmu, pfm_pmu_info_t *pi)
{
	memset(pi, 0, sizeof *pi);
	pi->size = sizeof *pi;
	return pfm_get_pmu_info((pfm_pmu_t)pmu, pi) == PFM_SUCCESS ? PAPI_OK : PAPI_ENOEVNT;
}

static int pfm_plm(int domain)
{
	int plm = 0;

	if (domain & PAPI_DOM_USER)
		plm |= PFM_PLM3;
	if (domain & PAPI_DOM_KERNEL)
		plm |= PFM_PLM0;
	if (domain & PAPI_DOM_SUPERVISOR)
		plm |= PFM_PLMH;
	return plm ? plm : PFM_PLM3;
}

static int attr_is_hw(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE || a->type == PERF_TYPE_RAW;
}

static int pmu_pos(int pmu)
{
	const struct tly_pe_probe *p = tly_pe_probe_get();

	for (int i = 0; i < p->npmus; i++)
		if (p->pmus[i] == pmu)
			return i;
	return -1;
}

/* "pmu::EVENT[:UMASK]" for an event index and umask attribute + 1. */
static int full_name(int idx, int um, char *buf, size_t len)
{
	pfm_event_info_t ei;
	pfm_event_attr_info_t ai;
	pfm_pmu_info_t pi;
	int n;

	if (event_info(idx, &ei) != PAPI_OK || pmu_info(ei.pmu, &pi) != PAPI_OK)
		return tly_err_set(PAPI_ENOEVNT, "perf_event: no libpfm4 event with index %d", idx);
	if (um && attr_info(idx, um - 1, &ai) != PAPI_OK)
		return tly_err_set(PAPI_ENOEVNT, "perf_event: %s has no attribute %d", ei.name, um - 1);
	n = snprintf(buf, len, "%s::%s%s%s", pi.name, ei.name, um ? ":" : "", um ? ai.name : "");
	if (n < 0 || (size_t)n >= len)
		return tly_err_set(PAPI_EBUF, "perf_event: name of event %s does not fit in %zu bytes", ei.name, len);
	return PAPI_OK;
}

/* Hardware events of the generic "perf" PMU cannot count without a kernel
 * hardware PMU; events that need a umask are judged by their first one. */
static int event_usable(int idx)
{
	const struct tly_pe_probe *p = tly_pe_probe_get();
	struct perf_event_attr a;
	char name[TLY_PE_NAME_LEN * 2];
	pfm_event_info_t ei;
	pfm_event_attr_info_t ai;
	int rc;

	if (p->hw_ok)
		return 1;
	if (full_name(idx, 0, name, sizeof name) != PAPI_OK)
		return 0;
	rc = tly_pe_encode(name, PAPI_DOM_USER, &a);
	if (rc != PAPI_OK && event_info(idx, &ei) == PAPI_OK) {
		for (int i = 0; i < ei.nattrs && rc != PAPI_OK; i++)
			if (attr_info(idx, i, &ai) == PAPI_OK && ai.type == PFM_ATTR_UMASK &&
			    full_name(idx, i + 1, name, sizeof name) == PAPI_OK)
				rc = tly_pe_encode(name, PAPI_DOM_USER, &a);
	}
	tly_err_clear();
	return rc == PAPI_OK && !attr_is_hw(&a);
}

/* First usable event at or after `idx` in PMU position `pos` (idx < 0:
 * from the PMU's first event), moving on to later PMUs. */
static int next_usable(int pos, int idx)
{
	const struct tly_pe_probe *p = tly_pe_probe_get();
	pfm_pmu_info_t pi;

	for (; pos < p->npmus; pos++, idx = -1) {
		if (idx < 0) {
			if (pmu_info(p->pmus[pos], &pi) != PAPI_OK)
				continue;
			idx = pi.first_event;
		}
		for (; idx >= 0; idx = pfm_get_event_next(idx))
			if (event_usable(idx))
				return idx;
	}
	return -1;
}

static int next_umask(uint64_t *tok)
{
	int idx = TOK_EVENT(*tok);
	pfm_event_info_t ei;
	pfm_event_attr_info_t ai;

	if (event_info(idx, &ei) != PAPI_OK)
		return PAPI_ENOEVNT;
	for (int a = TOK_UMASK(*tok); a < ei.nattrs; a++) {
		if (attr_info(idx, a, &ai) == PAPI_OK && ai.type == PFM_ATTR_UMASK) {
			*tok = TOK_MAKE(idx, a + 1);
			return PAPI_OK;
		}
	}
	return PAPI_ENOEVNT;
}

/* After libpfm4's events: the software events of pe_swevents.c from `i`. */
static int sw_from(uint64_t *tok, int i)
{
	if (i >= tly_pe_sw_count())
		return PAPI_ENOEVNT;
	*tok = TOK_SWBIT | (uint64_t)i;
	return PAPI_OK;
}

int tly_pe_ntv_enum(uint64_t *tok, int modifier)
{
	pfm_event_info_t ei;
	int idx;

	if (!tok)
		return PAPI_EINVAL;
	if (modifier == PAPI_ENUM_EVENTS && TOK_IS_SW(*tok))
		return sw_from(tok, TOK_EVENT(*tok) + 1);
	if (modifier == PAPI_NTV_ENUM_UMASKS && TOK_IS_SW(*tok))
		return PAPI_ENOEVNT;
	switch (modifier) {
	case PAPI_ENUM_FIRST:
		idx = next_usable(0, -1);
		break;
	case PAPI_ENUM_EVENTS:
		if (event_info(TOK_EVENT(*tok), &ei) != PAPI_OK || pmu_pos(ei.pmu) < 0)
			return PAPI_ENOEVNT;
		idx = pfm_get_event_next(TOK_EVENT(*tok));
		idx = idx < 0 ? next_usable(pmu_pos(ei.pmu) + 1, -1) : next_usable(pmu_pos(ei.pmu), idx);
		break;
	case PAPI_NTV_ENUM_UMASKS:
		return next_umask(tok);
	default:
		return PAPI_EINVAL;
	}
	if (idx < 0)
		return sw_from(tok, 0);
	*tok = TOK_MAKE(idx, 0);
	return PAPI_OK;
}

static int encode(const char *name, int domain, struct perf_event_attr *attr, int *idx)
{
	const struct tly_pe_probe *p = tly_pe_probe_get();
	pfm_perf_encode_arg_t arg;
	pfm_event_info_t ei;
	pfm_pmu_info_t pi;
	int rc;

	memset(attr, 0, sizeof *attr);
	memset(&arg, 0, sizeof arg);
	arg.attr = attr;
	arg.size = sizeof arg;
	rc = pfm_get_os_event_encoding(name, pfm_plm(domain), PFM_OS_PERF_EVENT_EXT, &arg);
	if (rc != PFM_SUCCESS)
		return tly_err_set(rc == PFM_ERR_NOMEM ? PAPI_ENOMEM : PAPI_ENOEVNT,
		                   "perf_event: libpfm4 cannot encode '%s': %s", name, pfm_strerror(rc));
	attr->size = sizeof *attr;
	if (event_info(arg.idx, &ei) != PAPI_OK || pmu_info(ei.pmu, &pi) != PAPI_OK)
		return tly_err_set(PAPI_ENOEVNT, "perf_event: libpfm4 lost event '%s'", name);
	if (pmu_pos(ei.pmu) < 0 || (!p->hw_ok && attr_is_hw(attr)))
		return tly_err_set(PAPI_ENOEVNT, "perf_event: '%s' needs a hardware PMU (%s) but the kernel "
		                   "exposes none on this machine (perf_event_open of a hardware event: %s); "
		                   "only software events can be counted", name, pi.name, strerror(p->hw_errno));
	if (attr_is_hw(attr) && (rc = tly_pe_pmu_implements(attr, name)) != PAPI_OK)
		return rc;
	*idx = arg.idx;
	return PAPI_OK;
}

int tly_pe_encode(const char *name, int domain, struct perf_event_attr *attr)
{
	int idx, sw = tly_pe_sw_encode(name, domain, attr, NULL, 0);

	if (sw >= 0)
		return PAPI_OK;
	if (sw == -2)
		return PAPI_ENOEVNT;
	return encode(name, domain, attr, &idx);
}

/* The event of `pmu` whose name equals `base` ignoring case, so the
 * canonical name uses libpfm4's spelling of the alias the user chose. */
static int find_in_pmu(int pmu, const char *base, size_t blen)
{
	pfm_pmu_info_t pi;
	pfm_event_info_t ei;

	if (pmu_info(pmu, &pi) != PAPI_OK)
		return -1;
	for (int idx = pi.first_event; idx >= 0; idx = pfm_get_event_next(idx))
		if (event_info(idx, &ei) == PAPI_OK && strlen(ei.name) == blen && strncasecmp(ei.name, base, blen) == 0)
			return idx;
	return -1;
}

static int umask_index(int idx, const char *mods)
{
	pfm_event_info_t ei;
	pfm_event_attr_info_t ai;
	size_t mlen = strcspn(mods, ":=");

	if (!mlen || event_info(idx, &ei) != PAPI_OK)
		return 0;
	for (int a = 0; a < ei.nattrs; a++)
		if (attr_info(idx, a, &ai) == PAPI_OK && ai.type == PFM_ATTR_UMASK &&
		    strlen(ai.name) == mlen && strncasecmp(ai.name, mods, mlen) == 0)
			return a + 1;
	return 0;
}

int tly_pe_ntv_lookup(const char *name, uint64_t *tok, char *canon, size_t len)
{
	struct perf_event_attr a;
	pfm_event_info_t ei;
	pfm_pmu_info_t pi;
	const char *rest, *sep;
	size_t blen;
	int rc, idx, n;

	if (!name || !tok || !canon || !len)
		return PAPI_EINVAL;
	if (strlen(name) >= TLY_PE_NAME_LEN)
		return tly_err_set(PAPI_EINVAL, "perf_event: event name is %zu characters, the limit is %d",
		                   strlen(name), TLY_PE_NAME_LEN - 1);
	if ((idx = tly_pe_sw_encode(name, PAPI_DOM_USER, &a, canon, len)) != -1) {
		if (idx < 0)
			return tly_err_detail()[0] && strstr(tly_err_detail(), "does not fit") ? PAPI_EBUF : PAPI_ENOEVNT;
		*tok = TOK_SWBIT | (uint64_t)idx;
		return PAPI_OK;
	}
	rc = encode(name, PAPI_DOM_USER, &a, &idx);
	if (rc != PAPI_OK)
		return rc;
	if (event_info(idx, &ei) != PAPI_OK || pmu_info(ei.pmu, &pi) != PAPI_OK)
		return tly_err_set(PAPI_ENOEVNT, "perf_event: libpfm4 cannot find '%s'", name);
	sep = strstr(name, "::");
	rest = sep ? sep + 2 : name;
	blen = strcspn(rest, ":");
	n = find_in_pmu(ei.pmu, rest, blen);
	if (n >= 0 && event_info(n, &ei) == PAPI_OK)
		idx = n;
	else
		ei.name = NULL;  /* e.g. perf_raw's r<hex>: keep the user's text */
	n = snprintf(canon, len, "%s::%.*s%s", pi.name, (int)blen, ei.name ? ei.name : rest, rest + blen);
	if (n < 0 || (size_t)n >= len)
		return tly_err_set(PAPI_EBUF, "perf_event: canonical name of '%s' needs %d bytes", name, n + 1);
	*tok = TOK_MAKE(idx, rest[blen] ? umask_index(idx, rest + blen + 1) : 0);
	return PAPI_OK;
}

int tly_pe_ntv_name(uint64_t tok, char *buf, size_t len)
{
	if (!buf || !len)
		return PAPI_EINVAL;
	if (TOK_IS_SW(tok))
		return tly_pe_sw_name(TOK_EVENT(tok), buf, len);
	return full_name(TOK_EVENT(tok), TOK_UMASK(tok), buf, len);
}

static const char *units_of(const char *name)
{
	struct perf_event_attr a;

	if (tly_pe_encode(name, PAPI_DOM_USER, &a) != PAPI_OK) {
		tly_err_clear();
		return "";
	}
	if (a.type == PERF_TYPE_SOFTWARE &&
	    (a.config == PERF_COUNT_SW_TASK_CLOCK || a.config == PERF_COUNT_SW_CPU_CLOCK))
		return "nsec";
	return "";
}

static int sw_describe(uint64_t tok, const char *name, PAPI_event_info_t *info)
{
	char own[PAPI_HUGE_STR_LEN];
	int rc = tly_pe_sw_name(TOK_EVENT(tok), own, sizeof own);

	if (rc != PAPI_OK)
		return rc;
	snprintf(info->symbol, sizeof info->symbol, "%s", name ? name : own);
	snprintf(info->long_descr, sizeof info->long_descr, "%s", tly_pe_sw_desc(TOK_EVENT(tok)));
	snprintf(info->short_descr, sizeof info->short_descr, "%.*s", (int)sizeof info->short_descr - 1,
	         info->long_descr);
	snprintf(info->units, sizeof info->units, "%s", units_of(own));
	info->data_type = PAPI_DATATYPE_UINT64;
	info->value_type = PAPI_VALUETYPE_RUNNING_SUM;
	info->timescope = PAPI_TIMESCOPE_SINCE_START;
	return PAPI_OK;
}

int tly_pe_ntv_describe(uint64_t tok, const char *name, PAPI_event_info_t *info)
{
	pfm_event_info_t ei;
	pfm_event_attr_info_t ai;
	char own[PAPI_HUGE_STR_LEN];
	int um = TOK_UMASK(tok), rc;

	if (!info)
		return PAPI_EINVAL;
	if (TOK_IS_SW(tok))
		return sw_describe(tok, name, info);
	if (event_info(TOK_EVENT(tok), &ei) != PAPI_OK)
		return tly_err_set(PAPI_ENOEVNT, "perf_event: token %#llx names no event", (unsigned long long)tok);
	if (!name) {
		rc = full_name(TOK_EVENT(tok), um, own, sizeof own);
		if (rc != PAPI_OK)
			return rc;
		name = own;
	}
	snprintf(info->symbol, sizeof info->symbol, "%s", name);
	if (um && attr_info(TOK_EVENT(tok), um - 1, &ai) == PAPI_OK)
		snprintf(info->long_descr, sizeof info->long_descr, "%s, masks:%s", ei.desc ? ei.desc : "",
		         ai.desc ? ai.desc : "");
	else
		snprintf(info->long_descr, sizeof info->long_descr, "%s", ei.desc ? ei.desc : "");
	snprintf(info->short_descr, sizeof info->short_descr, "%.*s", (int)sizeof info->short_descr - 1,
	         info->long_descr);
	snprintf(info->units, sizeof info->units, "%s", units_of(name));
	info->data_type = PAPI_DATATYPE_UINT64;
	info->value_type = PAPI_VALUETYPE_RUNNING_SUM;
	info->timescope = PAPI_TIMESCOPE_SINCE_START;
	return PAPI_OK;
}
