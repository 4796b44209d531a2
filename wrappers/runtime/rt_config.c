/*
 * rt_config.c - TALLY_* settings from the environment (table: settings.def).
 * A malformed value is reported once, in one sentence, and its default is
 * used: the application always runs.
 */
#include "runtime/rt.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct setting {
	const char *env, *kind, *def;
	size_t off;
};

static const struct setting settings[] = {
#define TLY_SETTING(field, env, kind, def, help) \
	{ #env, #kind, def, offsetof(struct tly_rt_cfg, field) },
#include "settings.def"
#undef TLY_SETTING
};

/* 1/0 for a boolean spelling, -1 when it is none. */
static int parse_bool(const char *s)
{
	static const char *const yes[] = { "1", "yes", "on", "true", "y" };
	static const char *const no[] = { "0", "no", "off", "false", "n" };

	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
		if (!strcasecmp(s, yes[i]))
			return 1;
		if (!strcasecmp(s, no[i]))
			return 0;
	}
	return -1;
}

static int valid(const char *kind, const char *v)
{
	char *end;

	if (!strcmp(kind, "BOOL"))
		return parse_bool(v) >= 0;
	if (!strcmp(kind, "INT")) {
		long x = strtol(v, &end, 10);
		return *v && !*end && x >= 0 && x < 1000000;
	}
	return 1;
}

/* Load one setting; with `say`, report a malformed value (the value and
 * its default are the same either way). */
static void load_one(const struct setting *s, struct tly_rt_cfg *cfg, int say)
{
	char *dst = (char *)cfg + s->off;
	const char *v = getenv(s->env);

	if (v && strlen(v) >= sizeof cfg->events) {
		if (say)
			tly_rt_log_job(1, "%s is longer than %zu characters; using the default '%s'",
				       s->env, sizeof cfg->events - 1, s->def);
		v = NULL;
	} else if (v && !valid(s->kind, v)) {
		if (say)
			tly_rt_log_job(1, "%s='%s' is not a valid %s; using the default '%s'", s->env, v,
				       !strcmp(s->kind, "BOOL") ? "yes/no value" : "non-negative integer", s->def);
		v = NULL;
	}
	if (dst)
		snprintf(dst, sizeof cfg->events, "%s", v ? v : s->def);
}

/* Settings the library (libtally) reads and checks itself: known here,
 * never "unknown" (docs/runtime.md lists them). */
static const char *const library_settings[] = {
	"TALLY_PERF_MAX_COUNTERS", "TALLY_PERF_RDPMC", "TALLY_CUPTI_LIB", "TALLY_CUDA_REPLAY",
	"TALLY_CUDA_NO_CACHE", "TALLY_CUDA_TIMING", "TALLY_NVML_LIB", "TALLY_QUIET",
};

/* Settings that look like ours but are not in the table. */
static void report_unknown(void)
{
	extern char **environ;

	for (char **e = environ; e && *e; e++) {
		size_t n = strcspn(*e, "=");
		int known = 0;

		if (strncmp(*e, "TALLY_", 6) != 0)
			continue;
		for (size_t i = 0; i < sizeof settings / sizeof *settings; i++)
			known |= strlen(settings[i].env) == n && !strncmp(settings[i].env, *e, n);
		for (size_t i = 0; i < sizeof library_settings / sizeof *library_settings; i++)
			known |= strlen(library_settings[i]) == n && !strncmp(library_settings[i], *e, n);
		if (!known && strncmp(*e, "TALLY_INTERNAL_", 15) != 0)
			tly_rt_log_job(1, "unknown setting %.*s ignored (tally-run --help lists them)", (int)n, *e);
	}
}

void tly_rt_config_load(struct tly_rt_opts *o)
{
	memset(o, 0, sizeof *o);
	/* verbose first, so the other messages honour it */
	for (size_t i = 0; i < sizeof settings / sizeof *settings; i++)
		load_one(&settings[i], &o->raw, 0);
	o->mpi = parse_bool(o->raw.mpi);
	o->mpi_regions = parse_bool(o->raw.mpi_regions);
	o->mpi_counters = parse_bool(o->raw.mpi_counters);
	o->mpi_callsites = atoi(o->raw.mpi_callsites) > TLY_RT_SITE_DEPTH ? TLY_RT_SITE_DEPTH
									 : atoi(o->raw.mpi_callsites);
	o->ompt = parse_bool(o->raw.ompt);
	o->omp_counters = parse_bool(o->raw.omp_counters);
	o->regions = parse_bool(o->raw.regions);
	o->serial = parse_bool(o->raw.serial);
	o->signals = parse_bool(o->raw.signals);
	o->disable = parse_bool(o->raw.disable);
	o->output_replace = parse_bool(o->raw.output_replace);
	o->max_depth = atoi(o->raw.max_depth);
	if (o->max_depth < 1)   /* reported by rt_config_check.c */
		o->max_depth = 1;
	o->max_regions = atoi(o->raw.max_regions);
	o->nvtx_max_marks = atol(o->raw.nvtx_max_marks);
	o->exit_timeout = atoi(o->raw.exit_timeout);
	o->verbose = atoi(o->raw.verbose);
}

/* Said once, by a process that measures (a launcher or shell that
 * inherits the preload says nothing) and is the job's first (rt_log.c). */
void tly_rt_config_report(void)
{
	struct tly_rt_cfg scratch;

	for (size_t i = 0; i < sizeof settings / sizeof *settings; i++)
		load_one(&settings[i], &scratch, 1);
	tly_rt_config_check(&scratch);
	report_unknown();
}

int tly_rt_name_in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");

		if (len == n && !strncmp(p, name, n))
			return 1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}
