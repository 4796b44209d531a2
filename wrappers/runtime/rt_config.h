/*
 * rt_config.h - the runtime's settings (rt_config.c, rt_config_check.c):
 * every row of the settings table (src/settings/settings.def) as text,
 * checked by the one parser (tally_shared.h), and the values the runtime
 * uses.
 */
#ifndef TALLY_RT_CONFIG_H
#define TALLY_RT_CONFIG_H

#include "output/out_records.h"
#include "runtime/rt_config_check.h"

/* struct tly_rt_cfg (every row as text) and struct tly_rt_opts (the
 * parsed values): output/out_records.h, in the process record. */
void tly_rt_config_load(struct tly_rt_opts *o);   /* quiet */
void tly_rt_config_report(void);                  /* malformed and unknown settings, once per job */
int tly_rt_name_in_list(const char *list, const char *name);
/* tly_rt_config_check, tly_rt_budget_parse: runtime/rt_config_check.h */

#endif /* TALLY_RT_CONFIG_H */
