/*
 * util_common.h - helpers shared by the PAPI utilities (papi_avail,
 * papi_native_avail, ...).  Everything here uses only the public PAPI API;
 * the utilities are PAPI programs like any user's.
 */
#ifndef TALLY_UTIL_COMMON_H
#define TALLY_UTIL_COMMON_H

#include <stdio.h>
#include "papi.h"

#define UTIL_RULE_WIDTH 80

#if defined(__GNUC__)
#define UTIL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define UTIL_PRINTF(f, a)
#endif

/* ---- Start-up and errors --------------------------------------------- */
/* PAPI_library_init; on failure print why on stderr and exit(1). */
void util_init(const char *prog);
/* Print "prog: message" on stderr; returns 1 (an exit status). */
int util_error(const char *prog, const char *fmt, ...) UTIL_PRINTF(2, 3);

/* ---- Options ---------------------------------------------------------- */
/* 1 when arg is short_opt ("-a") or long_opt ("--avail"; may be NULL). */
int util_opt_is(const char *arg, const char *short_opt, const char *long_opt);
/*
 * Value of an option taking an argument, accepting "-e X", "-eX" and
 * "--event=X" / "--event X".  Advances *i past a separate value.  NULL (and
 * an error message) when the value is missing.
 */
const char *util_opt_value(const char *prog, int argc, char **argv, int *i,
			   const char *short_opt, const char *long_opt);
/* Strictly parse a positive integer no larger than max; -1 on error. */
long util_parse_count(const char *prog, const char *what, const char *s, long max);
/* Report an unknown option and point at -h; returns 1. */
int util_bad_option(const char *prog, const char *arg);

/* ---- Events ------------------------------------------------------------ */
/* Name -> code with a clear message naming the event on failure. */
int util_event_code(const char *prog, const char *name, int *code);
/* 1 when the preset/native info says it is derived. */
int util_info_is_derived(const PAPI_event_info_t *info);
/* The natives a preset's info names: count when it is available, else the
 * names its mapping would count (name[] set, code 0, count 0). */
unsigned util_preset_terms(const PAPI_event_info_t *info);
/* Count the native events (not umasks) of one component, or all (cidx<0). */
int util_count_natives(int cidx);

/* ---- Printing ---------------------------------------------------------- */
void util_rule(FILE *f, char c);
/* "PAPI version : 7.1.0.0" and the hardware summary. */
void util_print_version(FILE *f);
void util_print_hw_summary(FILE *f);
/*
 * One line per active component whose disabled_reason is set (Tally: why
 * its hardware counters are unavailable), prefixed by indent.  Returns how
 * many lines it printed.
 */
int util_print_hw_notes(FILE *f, const char *indent);

/* ---- Workload and statistics ----------------------------------------- */
/* Touch npages fresh pages and do some floating point; returns a checksum. */
double util_workload(int npages);

struct util_stats {
	long long min, max;
	double mean, sd;
	long n;
};
void util_stats_of(const long long *v, long n, struct util_stats *s);

#endif /* TALLY_UTIL_COMMON_H */
