/*
 * samp_event.c - a counter as the sampling source (TALLY_SAMPLING_EVENT,
 * `--sampling-event=NAME[@PERIOD]`): one sample every PERIOD counts of
 * the thread's NAME instead of every period of its CPU time.
 *
 * NAME is a PAPI preset (PAPI_TOT_CYC, PAPI_L1_DCM: its one native term,
 * as papi_avail -e names it; a preset derived from several is refused)
 * or a native event libpfm4 knows (cycles, perf::PAGE-FAULTS,
 * amd64_fam19h_zen4::RETIRED_INSTRUCTIONS).  libpfm4 encodes it for
 * perf_event_open, as for the perf_event component; samp_source.c opens
 * it per thread as it opens cpu-clock, with sample_period = PERIOD.
 * Resolved once per process, before the first thread is armed.
 *
 * A counter the kernel opens may still never count: an Arm PMU takes the
 * raw encoding of a common event it does not implement and counts 0
 * forever (QEMU's PMU counts only cycles and instructions).  The library
 * knows which it implements, so a PMU's own event (a raw encoding) is
 * sampled only where the library would count it (PAPI_event_name_to_code),
 * and a preset only where it is available (PAPI_query_event); else
 * sampling is off with the library's reason, never silently empty.
 */
#include "sampling/samp.h"

#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "tally_shared.h"

#define NOT_FOUND "' not found: "   /* the library's "event 'NAME' not found: WHY" */

#define SAMP_EVENT_PERIOD 1000000LL   /* about 1 kHz of a 1 GHz event */

/* "NAME@PERIOD" into name and period; -1 with why on a bad period. */
static int split(const char *spec, struct tly_samp_event *ev, char *why, size_t len)
{
	const char *at = strchr(spec, '@');
	size_t n = at ? (size_t)(at - spec) : strlen(spec);
	long long period = SAMP_EVENT_PERIOD;

	if (n == 0 || n >= sizeof ev->name) {
		snprintf(why, len, "TALLY_SAMPLING_EVENT '%.64s': an event name of 1 to %zu characters, then "
			 "optionally @PERIOD", spec, sizeof ev->name - 1);
		return -1;
	}
	memcpy(ev->name, spec, n);
	ev->name[n] = '\0';
	if (at && tly_parse_num(at + 1, 0, 1LL << 62, &period) != 0) {
		snprintf(why, len, "TALLY_SAMPLING_EVENT '%.64s': the period after '@' is not a count from 1 to 2^62",
			 spec);
		return -1;
	}
	if (period < 1) {
		snprintf(why, len, "TALLY_SAMPLING_EVENT '%.64s': the period must be at least 1", spec);
		return -1;
	}
	ev->period = period;
	return 0;
}

/* A preset's one native term (papi_avail's "Native term 0"), or the name. */
static int native_of(struct tly_samp_event *ev, char *why, size_t len)
{
	PAPI_event_info_t info;
	int code;

	if (strncmp(ev->name, "PAPI_", 5) != 0) {
		snprintf(ev->native, sizeof ev->native, "%s", ev->name);
		return 0;
	}
	if (PAPI_event_name_to_code(ev->name, &code) != PAPI_OK || PAPI_get_event_info(code, &info) != PAPI_OK) {
		snprintf(why, len, "'%s' is not a PAPI preset (papi_avail lists them)", ev->name);
		return -1;
	}
	if (PAPI_query_event(code) != PAPI_OK) {
		snprintf(why, len, "%s cannot be counted on this machine (papi_avail -e %s says why)", ev->name,
			 ev->name);
		return -1;
	}
	if (info.count != 1) {
		snprintf(why, len, "%s is %s here; sample on one native event (papi_avail -e %s)", ev->name,
			 info.count ? "derived from several native events" : "not mapped to a native event", ev->name);
		return -1;
	}
	snprintf(ev->native, sizeof ev->native, "%s", info.name[0]);
	return 0;
}

/* A raw encoding (a PMU's own event) the library would not count: -1 with
 * its reason, less the "event 'NAME' not found: " the name already says. */
static int pmu_refuses(const struct tly_samp_event *ev, char *why, size_t len)
{
	const char *detail, *cut;
	int code, rc;

	if (ev->attr.type != PERF_TYPE_RAW || (rc = PAPI_event_name_to_code(ev->native, &code)) == PAPI_OK)
		return 0;
	detail = tly_err_detail();
	if (!detail[0])
		detail = PAPI_strerror(rc) ? PAPI_strerror(rc) : "the library refuses it";
	else if (!strncmp(detail, "event '", 7) && (cut = strstr(detail, NOT_FOUND)))
		detail = cut + strlen(NOT_FOUND);
	snprintf(why, len, "%s cannot be sampled here: %s", ev->name, detail);
	return -1;
}

int tly_samp_event_resolve(const char *spec, struct tly_samp_event *ev, char *why, size_t len)
{
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int r;

	memset(ev, 0, sizeof *ev);
	if (split(spec, ev, why, len) != 0 || native_of(ev, why, len) != 0)
		return -1;
	memset(&arg, 0, sizeof arg);
	arg.attr = &ev->attr;
	arg.size = sizeof arg;
	arg.fstr = &fstr;
	if ((r = pfm_initialize()) != PFM_SUCCESS ||
	    (r = pfm_get_os_event_encoding(ev->native, PFM_PLM3, PFM_OS_PERF_EVENT, &arg)) != PFM_SUCCESS) {
		snprintf(why, len, "%s%s%s cannot be sampled here: libpfm4 says %s", ev->name,
			 strcmp(ev->name, ev->native) ? " = " : "", strcmp(ev->name, ev->native) ? ev->native : "",
			 pfm_strerror(r));
		return -1;
	}
	snprintf(ev->full, sizeof ev->full, "%s", fstr ? fstr : ev->native);
	free(fstr);
	ev->attr.size = sizeof ev->attr;
	return pmu_refuses(ev, why, len);
}
