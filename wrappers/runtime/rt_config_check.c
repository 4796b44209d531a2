/*
 * rt_config_check.c - settings that parse but cannot mean what they say:
 * each is reported once per job, in one sentence saying what is done
 * instead (a setting that is silently bent is a measurement the user did
 * not ask for).
 */
#include "runtime/rt_config_check.h"
#include "runtime/rt_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tally_shared.h"

static int is_number(const char *s)
{
	char *end;

	if (!*s)
		return 0;
	strtol(s, &end, 10);
	return !*end;
}

double tly_rt_budget_parse(const char *text)
{
	char *end;
	double v;

	if (!*text)
		return 3;
	if (!strcasecmp(text, "off") || !strcasecmp(text, "no"))
		return 0;
	v = strtod(text, &end);
	if (end == text || (*end && strcmp(end, "%")) || v < 0 || v > 100 || (v > 0 && v < 0.1))
		return -1;
	return v;
}

long tly_rt_sampling_rate(const char *text)
{
	long long v;

	if (!*text)
		return 0;
	if (tly_parse_num(text, 0, 20000, &v) == 0)   /* a number before the words: "1" is 1 a second */
		return (long)v;
	switch (tly_parse_bool(text)) {   /* the settings' yes/no words, any case */
	case 1:
		return TLY_RT_SAMPLING_DEFAULT;
	case 0:
		return 0;
	default:
		return -1;
	}
}

void tly_rt_config_check(const struct tly_rt_cfg *raw)
{
	long period = atol(raw->pcsamp_period);

	if (atoi(raw->max_depth) == 0)
		tly_rt_log_job(1, "TALLY_MAX_DEPTH=0 cannot be honoured (the program itself is region depth 1); "
			       "recording depth 1 only");
	if (raw->pass_index[0] && (!is_number(raw->pass_index) || atol(raw->pass_index) < 0))
		tly_rt_log_job(1, "TALLY_PASS_INDEX='%s' is not a pass number (0, 1, ...); counting pass 0",
			       raw->pass_index);
	if (period && (period < 5 || period > 31))
		tly_rt_log_job(1, "TALLY_PCSAMP_PERIOD=%ld is outside 5..31 (2^5..2^31 cycles, 0: CUPTI's "
			       "default); %s", period,
			       tly_parse_bool(raw->pcsamp) == 1 ? "PC sampling will not start"
								 : "ignored: PC sampling is off");
	if (raw->libomp[0] && strcasecmp(raw->libomp, "auto") && strcasecmp(raw->libomp, "off") &&
	    strcasecmp(raw->libomp, "no") && strcmp(raw->libomp, "0") &&
	    access(raw->libomp, R_OK) != 0)
		tly_rt_log_job(1, "TALLY_LIBOMP='%s': %s; OpenMP programs built with GCC run on their own "
			       "libgomp, measured inside it", raw->libomp, strerror(errno));
	if (tly_rt_budget_parse(raw->budget) < 0)
		tly_rt_log_job(1, "TALLY_BUDGET='%s' is not a percentage (0.1 to 100, e.g. 3 or 3%%) nor 'off'; "
			       "keeping the default budget of 3%%", raw->budget);
	if (tly_rt_sampling_rate(raw->sampling) < 0) {
		char q[160];

		tly_quote(raw->sampling, q, sizeof q);
		tly_rt_log_job(1, "TALLY_SAMPLING='%s' is not a rate (samples a second, 0 to 20000) nor on/off; "
			       "sampling is off", q);
	}
	if (atol(raw->max_regions) == 0)
		tly_rt_log_job(1, "TALLY_MAX_REGIONS=0: every region is folded into '(other regions)'");
}
