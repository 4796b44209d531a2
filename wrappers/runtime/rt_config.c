/*
 * rt_config.c - the runtime's settings: every row of the settings table
 * (src/settings/settings.def), read and checked by the one parser
 * (tally_shared.h).
 * A malformed value is reported once, in one sentence, and its default is
 * used: the application always runs.
 */
#include "runtime/rt_config.h"
#include "runtime/rt_log.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "tally_shared.h"

/* Where each row's text goes in struct tly_rt_cfg. */
static const size_t field_off[TLY_NSETTINGS] = {
#define TLY_SETTING(field, env, kind, def, max, help) offsetof(struct tly_rt_cfg, field),
#include "settings/settings.def"
#undef TLY_SETTING
};

/* Load one setting; with `say`, report a malformed value (the value and
 * its default are the same either way). */
static void load_one(int id, struct tly_rt_cfg *cfg, int say)
{
	const struct tly_setting_row *r = tly_setting_row(id);
	char *dst = (char *)cfg + field_off[id];
	const char *v = tly_setting_raw(id);
	char why[640];

	if (v && strlen(v) >= sizeof cfg->events) {
		/* claimed as below: the library's copy does not say it again */
		if (say && (!tly_setting_is_library(id) || tly_setting_claim(id)))
			tly_rt_log_job(1, "%s is longer than %zu characters; using the default '%s'",
				       r->env, sizeof cfg->events - 1, r->def);
		v = NULL;
	} else if (tly_setting_check(id, v, why, sizeof why) != 0) {
		/* a library setting is said here once per job, and claimed on
		 * every rank so the library's copy stays quiet (settings_say.c) */
		if (say && (!tly_setting_is_library(id) || tly_setting_claim(id)))
			tly_rt_log_job(1, "%s; using the default '%s'", why, r->def);
		v = NULL;
	}
	if (r->kind == TLY_KIND_CHOICE)   /* the table's spelling, whatever the case */
		tly_setting_word(id, v, dst, sizeof cfg->events);
	else
		snprintf(dst, sizeof cfg->events, "%s", v ? v : r->def);
}

/* A TALLY_* variable that is no row of the table. */
static void say_unknown(const char *e, void *arg)
{
	size_t n = strcspn(e, "=");

	(void)arg;
	if (!strncmp(e, "TALLY_", 6) && strncmp(e, "TALLY_INTERNAL_", 15) != 0 && tly_setting_find(e, n) < 0)
		tly_rt_log_job(1, "unknown setting %.*s ignored (tally-run --help lists them)", (int)n, e);
}

static int yes(int id)
{
	int v;
	char why[8];

	tly_setting_bool(id, &v, why, sizeof why);
	return v;
}

/* 1 when the output name (in the output directory unless absolute) is
 * the null device: the job is measured and nothing written (issue 52:
 * tally-run --output-name=/dev/null). */
static int null_device(const struct tly_rt_cfg *raw)
{
	struct stat st, null;
	char path[PATH_MAX];

	if (!raw->output_name[0])
		return 0;
	snprintf(path, sizeof path, "%s/%s", raw->output_name[0] == '/' ? "" : raw->output_dir, raw->output_name);
	return !lstat(path, &st) && S_ISCHR(st.st_mode) && !stat("/dev/null", &null) && st.st_rdev == null.st_rdev;
}

void tly_rt_config_load(struct tly_rt_opts *o)
{
	memset(o, 0, sizeof *o);
	/* verbose first, so the other messages honour it */
	for (int i = 0; i < TLY_NSETTINGS; i++)
		load_one(i, &o->raw, 0);
	o->mpi = yes(TLY_SET_mpi);
	o->mpi_regions = yes(TLY_SET_mpi_regions);
	o->mpi_counters = yes(TLY_SET_mpi_counters);
	o->mpi_callsites = atoi(o->raw.mpi_callsites) > TLY_RT_SITE_DEPTH ? TLY_RT_SITE_DEPTH
									 : atoi(o->raw.mpi_callsites);
	o->ompt = yes(TLY_SET_ompt);
	o->omp_counters = yes(TLY_SET_omp_counters);
	o->regions = yes(TLY_SET_regions);
	o->region_counters = yes(TLY_SET_region_counters);
	o->budget_pct = tly_rt_budget_parse(o->raw.budget);
	if (o->budget_pct < 0)   /* reported by rt_config_check.c */
		o->budget_pct = 3;
	o->serial = yes(TLY_SET_serial);
	o->signals = yes(TLY_SET_signals);
	o->disable = yes(TLY_SET_disable);
	o->output_replace = yes(TLY_SET_output_replace);
	o->discard = null_device(&o->raw);
	o->max_depth = atoi(o->raw.max_depth);
	if (o->max_depth < 1)   /* reported by rt_config_check.c */
		o->max_depth = 1;
	o->max_regions = atoi(o->raw.max_regions);
	o->nvtx_max_marks = atol(o->raw.nvtx_max_marks);
	o->exit_timeout = atoi(o->raw.exit_timeout);
	o->verbose = atoi(o->raw.verbose);
	o->loaded = 1;
}

/* Said once, by a process that measures (a launcher or shell that
 * inherits the preload says nothing) and is the job's first (rt_log.c). */
void tly_rt_config_report(void)
{
	struct tly_rt_cfg scratch;

	for (int i = 0; i < TLY_NSETTINGS; i++)
		load_one(i, &scratch, 1);
	tly_rt_config_check(&scratch);
	tly_env_each(say_unknown, NULL);
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
