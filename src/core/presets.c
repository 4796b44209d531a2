/*
 * presets.c - resolving PAPI presets on this machine: from the embedded
 * maps at PAPI_library_init, and from user files (PAPI_encode_events).
 */
#include "core/presets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/eventset.h"
#include "core/lib.h"
#include "core/native.h"
#include "core/preset_maps.h"

#define MAX_PRESENT_PMUS 64
#define MAX_FILE_BYTES (4 << 20)

static const char no_core_note[] =
	"no hardware PMU: no enabled component counts CPU hardware events";

/* Changed only under the library lock (init, shutdown, PAPI_encode_events). */
static struct {
	int ready;
	struct tly_preset p[PAPI_END_idx];
	int npmus;
	const char *pmus[MAX_PRESENT_PMUS]; /* PMUs the enabled components list */
	const char *core;      /* the core PMU the embedded maps match, or NULL */
	const char *core_why;  /* why there is none */
} st;

/* One pass over one map file. */
struct resolve {
	const char *file;
	int replace;    /* rows may replace presets that are already available */
	int allow_star; /* "CPU,*" matches (user files only) */
	int core_only;  /* blocks match the core PMU only (the embedded maps) */
	int matched;    /* rows of matching blocks seen */
	const char *matched_pmu;
};

/*
 * The PMUs user map files may name are every PMU an enabled component
 * lists; the embedded maps describe core PMUs only and match the one core
 * PMU a component names through its core_pmu hook (perf_event:
 * tly_pe_core_pmu, decided in pe_pmu_select.c from libpfm4's
 * PFM_PMU_TYPE_CORE and the kernel), never an uncore, L3 or RAPL PMU.
 */
static void collect_pmus(void)
{
	st.npmus = 0;
	st.core = NULL;
	st.core_why = no_core_note;
	for (int c = 0; c < tly_num_components; c++) {
		PAPI_component_info_t *info = tly_cmp_info(c);
		const struct tly_component *cmp = tly_cmp(c);
		const char *why = NULL;

		if (tly_cmp_check(c) != PAPI_OK || !info)
			continue;
		for (int i = 0; i < PAPI_PMU_MAX; i++)
			if (info->pmu_names[i] && st.npmus < MAX_PRESENT_PMUS)
				st.pmus[st.npmus++] = info->pmu_names[i];
		if (!st.core && cmp && cmp->core_pmu) {
			st.core = cmp->core_pmu(&why);
			if (!st.core && why && why[0])
				st.core_why = why;
		}
	}
}

/* The PMU of this block that is present ("*" for a wildcard), or NULL. */
static const char *block_match(const struct tly_map_block *blk, int allow_star, int core_only)
{
	for (int b = 0; b < blk->npmus; b++) {
		if (allow_star && strcmp(blk->pmus[b], "*") == 0)
			return "*";
		if (core_only) {
			if (st.core && strcmp(blk->pmus[b], st.core) == 0)
				return st.core;
			continue;
		}
		for (int i = 0; i < st.npmus; i++)
			if (strcmp(blk->pmus[b], st.pmus[i]) == 0)
				return st.pmus[i];
	}
	return NULL;
}

static void qualify(char *buf, size_t len, const char *pmu, const char *native)
{
	if (strcmp(pmu, "*") == 0 || strstr(native, "::"))
		snprintf(buf, len, "%s", native);
	else
		snprintf(buf, len, "%s::%s", pmu, native);
}

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = -99;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = -99;
		fclose(f);
	}
	return level;
}

static void note_rejected(struct tly_preset *np, int rc, const char *where, const char *what)
{
	const char *detail = tly_err_detail()[0] ? tly_err_detail() : tly_err_text(rc);
	int level = rc == PAPI_EPERM ? paranoid_level() : -99;

	np->avail = rc;
	if (level != -99)
		snprintf(np->note, sizeof np->note,
			 "%s: %s was rejected: %s (/proc/sys/kernel/perf_event_paranoid is %d)",
			 where, what, detail, level);
	else
		snprintf(np->note, sizeof np->note, "%s: %s was rejected: %s", where, what, detail);
}

/* Build the state a map row gives on this machine into *np. */
static void resolve_row(const struct resolve *rs, const char *pmu,
			const struct tly_map_row *row, struct tly_preset *np)
{
	char where[PAPI_2MAX_STR_LEN], name[PAPI_2MAX_STR_LEN + PAPI_MIN_STR_LEN + 4];
	int rc;

	memset(np, 0, sizeof *np);
	np->derived = row->derived;
	np->nterms = row->nterms;
	snprintf(np->postfix, sizeof np->postfix, "%s", row->postfix);
	np->prog = row->prog;
	snprintf(where, sizeof where, "%s:%d", rs->file, row->line);
	for (int i = 0; i < row->nterms; i++) {
		qualify(name, sizeof name, pmu, row->natives[i]);
		tly_err_clear();
		rc = tly_native_lookup(name, &np->codes[i]);
		if (rc != PAPI_OK) {
			char what[sizeof name + 16];

			snprintf(what, sizeof what, "native %s", name);
			note_rejected(np, rc, where, what);
			return;
		}
	}
	tly_err_clear();
	rc = tly_evset_try_natives(np->codes, np->nterms);
	if (rc != PAPI_OK) {
		note_rejected(np, rc, where, "counting its natives together");
		return;
	}
	np->avail = PAPI_OK;
	snprintf(np->note, sizeof np->note, "mapped by %s for PMU %s", where, pmu);
}

static int on_row(void *arg, const struct tly_map_block *blk, const struct tly_map_row *row)
{
	struct resolve *rs = arg;
	struct tly_preset *cur = &st.p[row->idx];
	const char *pmu = block_match(blk, rs->allow_star, rs->core_only);
	struct tly_preset *np;

	if (!pmu)
		return PAPI_OK;
	rs->matched++;
	rs->matched_pmu = pmu;
	if (cur->avail == PAPI_OK && !rs->replace)
		return PAPI_OK;
	np = malloc(sizeof *np);
	if (!np)
		return tly_err_set(PAPI_ENOMEM, "out of memory resolving %s", tly_preset_defs[row->idx].symbol);
	resolve_row(rs, pmu, row, np);
	/* never trade an available mapping for one that does not work */
	if (np->avail == PAPI_OK || cur->avail != PAPI_OK)
		*cur = *np;
	free(np);
	return PAPI_OK;
}

/* Why a preset no map row reached is unavailable. */
static void note_unmapped(const struct resolve *embedded)
{
	for (int i = 0; i < PAPI_END_idx; i++) {
		struct tly_preset *p = &st.p[i];

		if (p->note[0])
			continue;
		if (!st.core)
			snprintf(p->note, sizeof p->note, "%s", st.core_why);
		else if (!embedded->matched)
			snprintf(p->note, sizeof p->note, "no preset mapping for core PMU %s", st.core);
		else
			snprintf(p->note, sizeof p->note, "the preset maps have no entry for %s on PMU %s",
				 tly_preset_defs[i].symbol, embedded->matched_pmu);
	}
}

int tly_presets_init(void)
{
	struct resolve rs = { .replace = 0, .core_only = 1 };

	memset(&st, 0, sizeof st);
	for (int i = 0; i < PAPI_END_idx; i++)
		st.p[i].avail = PAPI_ENOEVNT;
	collect_pmus();
	for (int m = 0; m < tly_num_preset_maps; m++) {
		rs.file = tly_preset_maps[m].file;
		/* A broken embedded map is a build bug the unit tests catch;
		 * the library still comes up, with that file's presets missing. */
		if (tly_map_parse(rs.file, tly_preset_maps[m].text, on_row, &rs) != PAPI_OK)
			tly_api_ret(PAPI_EBUG, "tly_presets_init");
	}
	note_unmapped(&rs);
	st.ready = 1;
	tly_err_clear();
	return PAPI_OK;
}

void tly_presets_shutdown(void)
{
	st.ready = 0;
	st.npmus = 0;
}

const struct tly_preset *tly_preset_get(int idx)
{
	if (!st.ready || idx < 0 || idx >= PAPI_END_idx)
		return NULL;
	return &st.p[idx];
}

static int read_file(const char *path, char **out)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;
	int rc = PAPI_OK;

	if (!f)
		return tly_err_set(PAPI_EINVAL, "cannot open preset file %s: %s", path, strerror(errno));
	buf = malloc(MAX_FILE_BYTES + 1);
	if (!buf) {
		fclose(f);
		return tly_err_set(PAPI_ENOMEM, "out of memory reading %s", path);
	}
	n = fread(buf, 1, MAX_FILE_BYTES + 1, f);
	if (ferror(f))
		rc = tly_err_set(PAPI_EINVAL, "cannot read preset file %s: %s", path, strerror(errno));
	else if (n > MAX_FILE_BYTES)
		rc = tly_err_set(PAPI_EINVAL, "preset file %s is larger than 4 MiB", path);
	else if (memchr(buf, '\0', n))
		rc = tly_err_set(PAPI_EINVAL, "preset file %s contains a NUL byte", path);
	fclose(f);
	if (rc != PAPI_OK) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*out = buf;
	return PAPI_OK;
}

int tly_presets_load_file(const char *path, int replace)
{
	struct resolve rs = { .file = path, .replace = replace != 0, .allow_star = 1 };
	char *text = NULL;
	int rc;

	if (!path)
		return tly_err_set(PAPI_EINVAL, "no preset file named");
	if (!st.ready)
		return tly_err_set(PAPI_ENOINIT, "presets are not initialised (call PAPI_library_init)");
	rc = read_file(path, &text);
	if (rc != PAPI_OK)
		return rc;
	/* check everything first so a bad line leaves no half-applied file */
	rc = tly_map_parse(path, text, NULL, NULL);
	if (rc == PAPI_OK)
		rc = tly_map_parse(path, text, on_row, &rs);
	free(text);
	if (rc == PAPI_OK)
		tly_err_clear();
	return rc;
}
