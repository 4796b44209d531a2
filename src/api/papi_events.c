/*
 * papi_events.c - event names, codes, enumeration and descriptions.
 */
#include "papi.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "api/api_common.h"
#include "core/native.h"
#include "core/presets.h"

static int preset_index(int code)
{
	int idx = code & PAPI_PRESET_AND_MASK;

	if (!IS_PRESET(code) || idx >= PAPI_END_idx)
		return tly_err_set(PAPI_ENOTPRESET, "0x%x is not a valid preset code", (unsigned)code);
	return idx;
}

int PAPI_event_name_to_code(const char *in, int *out)
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (!in || !out)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "event name and code pointer must not be NULL"));
	if (strlen(in) >= PAPI_MAX_STR_LEN)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "event name is longer than %d characters",
					   PAPI_MAX_STR_LEN - 1));
	if (!strncasecmp(in, "PAPI_", 5)) {
		for (int i = 0; i < PAPI_END_idx; i++) {
			if (!strcasecmp(in, tly_preset_defs[i].symbol)) {
				*out = i | PAPI_PRESET_MASK;
				return PAPI_OK;
			}
		}
	}
	return TLY_RET(tly_native_lookup(in, out));
}

int PAPI_event_code_to_name(int EventCode, char *out)
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (!out)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "out must not be NULL"));
	if (IS_PRESET(EventCode)) {
		int idx = preset_index(EventCode);

		if (idx < 0)
			return TLY_RET(idx);
		snprintf(out, PAPI_MAX_STR_LEN, "%s", tly_preset_defs[idx].symbol);
		return PAPI_OK;
	}
	return TLY_RET(tly_native_get(EventCode, NULL, NULL, out, PAPI_MAX_STR_LEN));
}

int PAPI_query_event(int EventCode)
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (IS_PRESET(EventCode)) {
		int idx = preset_index(EventCode);
		const struct tly_preset *p;

		if (idx < 0)
			return TLY_RET(idx);
		p = tly_preset_get(idx);
		if (!p || p->avail != PAPI_OK)
			return tly_err_set(p ? p->avail : PAPI_ENOEVNT, "%s: %s", tly_preset_defs[idx].symbol,
					   p ? p->note : "presets are not resolved");
		return PAPI_OK;
	}
	if (IS_NATIVE(EventCode)) {
		int cidx;

		rc = tly_native_get(EventCode, &cidx, NULL, NULL, 0);
		return rc == PAPI_OK ? tly_cmp_check(cidx) : rc;
	}
	return tly_err_set(PAPI_ENOEVNT, "0x%x is not an event code", (unsigned)EventCode);
}

int PAPI_query_named_event(const char *EventName)
{
	int code, rc = PAPI_event_name_to_code(EventName, &code);

	return rc == PAPI_OK ? PAPI_query_event(code) : rc;
}

static void preset_info(int idx, PAPI_event_info_t *info)
{
	const struct tly_preset_def *d = &tly_preset_defs[idx];
	const struct tly_preset *p = tly_preset_get(idx);

	memset(info, 0, sizeof *info);
	info->event_code = (unsigned)(idx | PAPI_PRESET_MASK);
	snprintf(info->symbol, sizeof info->symbol, "%s", d->symbol);
	snprintf(info->short_descr, sizeof info->short_descr, "%s", d->short_descr);
	snprintf(info->long_descr, sizeof info->long_descr, "%s", d->long_descr);
	info->event_type = d->categories;
	info->component_index = -1;
	if (!p)
		return;
	snprintf(info->note, sizeof info->note, "%s", p->note);
	/* As in PAPI, count > 0 means the preset can be counted here.  A
	 * mapping that does not count still names its natives in name[] (code
	 * 0, count 0), so papi_avail can say what it would count. */
	info->count = p->avail == PAPI_OK ? (unsigned)p->nterms : 0;
	snprintf(info->derived, sizeof info->derived, "%s", tly_derived_name(p->derived));
	snprintf(info->postfix, sizeof info->postfix, "%s", p->postfix);
	for (int t = 0; t < p->nterms && t < PAPI_MAX_INFO_TERMS; t++) {
		snprintf(info->name[t], sizeof info->name[t], "%s", p->names[t]);
		if (p->avail != PAPI_OK)
			continue;
		info->code[t] = (unsigned)p->codes[t];
		tly_native_get(p->codes[t], t ? NULL : &info->component_index, NULL, info->name[t],
			       sizeof info->name[t]);
	}
}

int PAPI_get_event_info(int EventCode, PAPI_event_info_t *info)
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (!info)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "info must not be NULL"));
	if (IS_PRESET(EventCode)) {
		int idx = preset_index(EventCode);

		if (idx < 0)
			return TLY_RET(idx);
		preset_info(idx, info);
		return PAPI_OK;
	}
	return TLY_RET(tly_native_info(EventCode, info));
}

static int preset_matches(int idx, int modifier)
{
	const struct tly_preset *p = tly_preset_get(idx);

	if (modifier == PAPI_ENUM_EVENTS)
		return 1;
	if (modifier == PAPI_PRESET_ENUM_AVAIL)
		return p && p->avail == PAPI_OK;
	if (modifier >= PAPI_PRESET_ENUM_MSC && modifier <= PAPI_PRESET_ENUM_FP)
		return (tly_preset_defs[idx].categories & (1u << (modifier - PAPI_PRESET_ENUM_MSC))) != 0;
	return -1;
}

static int enum_preset(int *code, int modifier)
{
	int idx = *code & PAPI_PRESET_AND_MASK;

	if (modifier == PAPI_ENUM_FIRST) {
		*code = PAPI_PRESET_MASK;
		return PAPI_OK;
	}
	if (preset_matches(0, modifier) < 0)
		return tly_err_set(PAPI_EINVAL, "modifier %d is not valid for presets", modifier);
	while (++idx < PAPI_END_idx) {
		if (preset_matches(idx, modifier)) {
			*code = idx | PAPI_PRESET_MASK;
			return PAPI_OK;
		}
	}
	return PAPI_ENOEVNT;
}

static int enum_any(int *EventCode, int modifier, int cidx)
{
	int rc = tly_lib_check();

	if (rc != PAPI_OK)
		return TLY_RET(rc);
	if (!EventCode)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "EventCode must not be NULL"));
	if (IS_PRESET(*EventCode)) {
		if (cidx > 0)
			return PAPI_ENOEVNT;
		return enum_preset(EventCode, modifier);
	}
	if (IS_NATIVE(*EventCode))
		return tly_native_enum(EventCode, modifier, cidx);
	return TLY_RET(tly_err_set(PAPI_EINVAL, "0x%x is neither a preset nor a native code",
				   (unsigned)*EventCode));
}

int PAPI_enum_event(int *EventCode, int modifier)
{
	return enum_any(EventCode, modifier, -1);
}

int PAPI_enum_cmp_event(int *EventCode, int modifier, int cidx)
{
	int rc = tly_lib_check();

	if (rc == PAPI_OK)
		rc = tly_cmp_check(cidx);
	if (rc != PAPI_OK)
		return TLY_RET(rc);
	return enum_any(EventCode, modifier, cidx);
}

int PAPI_get_event_component(int EventCode)
{
	PAPI_event_info_t info;
	int rc = PAPI_get_event_info(EventCode, &info);

	if (rc != PAPI_OK)
		return rc;
	if (IS_PRESET(EventCode) && info.count == 0)
		return 0; /* presets belong to the CPU component even when unavailable */
	return info.component_index;
}
