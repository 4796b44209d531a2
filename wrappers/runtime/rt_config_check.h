/*
 * rt_config_check.h - settings that parse but cannot mean what they say
 * (rt_config_check.c), below the settings' loader (rt_config.c).
 */
#ifndef TALLY_RT_CONFIG_CHECK_H
#define TALLY_RT_CONFIG_CHECK_H

#include "output/out_records.h"

/* Values well-formed but meaningless: said once per job. */
void tly_rt_config_check(const struct tly_rt_cfg *raw);
/* TALLY_BUDGET's value in percent (0: off); -1 when it is not one. */
double tly_rt_budget_parse(const char *text);

/* TALLY_SAMPLING's rate: a whole number 0..20000, 'on' (yes, true) the
 * default rate, 'off' (no, false, empty) 0; -1 when it is none of these
 * (reported by tly_rt_config_check, sampling then off).  The default,
 * 100 a second, was chosen from measurement (docs/sampling.md: ~1% of
 * LULESH's time where each thread has a core of its own). */
#define TLY_RT_SAMPLING_DEFAULT 100
long tly_rt_sampling_rate(const char *text);

#endif /* TALLY_RT_CONFIG_CHECK_H */
