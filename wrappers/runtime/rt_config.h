/*
 * rt_config.h - the runtime's settings (rt_config.c, rt_config_check.c):
 * every row of the settings table (src/settings/settings.def) as text,
 * checked by the one parser (tally_shared.h), and the values the runtime
 * uses.
 */
#ifndef TALLY_RT_CONFIG_H
#define TALLY_RT_CONFIG_H

struct tly_rt_cfg {
#define TLY_SETTING(field, env, kind, def, max, help) char field[512];
#include "settings/settings.def"
#undef TLY_SETTING
};
/* Parsed values (after validation, defaults applied for malformed ones). */
struct tly_rt_opts {
	struct tly_rt_cfg raw;
	int mpi, mpi_regions, mpi_counters, ompt, regions, serial, signals, disable;
	int max_depth, exit_timeout, verbose, output_replace, max_regions;
	long nvtx_max_marks;
	int mpi_callsites;    /* frames per MPI call site, 0: off */
	int omp_counters;     /* counters at OpenMP region boundaries */
	int region_counters;  /* counters at user region boundaries */
	double budget_pct;    /* TALLY_BUDGET: percent of a thread's CPU time, 0: off */
	int discard;          /* TALLY_OUTPUT_NAME is the null device (/dev/null): measured, nothing written */
	int loaded;           /* tly_rt_config_load has filled it */
};
void tly_rt_config_load(struct tly_rt_opts *o);   /* quiet */
void tly_rt_config_report(void);                  /* malformed and unknown settings, once per job */
/* Values well-formed but meaningless (rt_config_check.c): said once per job. */
void tly_rt_config_check(const struct tly_rt_cfg *raw);
int tly_rt_name_in_list(const char *list, const char *name);
/* TALLY_BUDGET's value in percent (0: off); -1 when it is not one. */
double tly_rt_budget_parse(const char *text);

#endif /* TALLY_RT_CONFIG_H */
