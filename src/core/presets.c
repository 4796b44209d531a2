/*
 * presets.c - resolving PAPI presets on this machine: from the embedded
 * maps at PAPI_library_init, and from user files (PAPI_encode_events).
 */
#include "core/presets.h"
#include "core/lib.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/evset_count.h"
#include "core/cmp_registry.h"
#include "core/native.h"
#include "core/preset_maps.h"
#include "tally_shared.h"

#define MAX_PRESENT_PMUS 64
#define MAX_FILE_BYTES (4 << 20)

static const char no_hw_note[] =
	"the kernel exposes no hardware PMU on this machine and libpfm4 detects no core PMU "
	"for this CPU; only software events are available";

/* A map row that applies on this machine, kept at init and tried on the
 * counters only when its preset is first asked for (resolve_pending). */
struct cand {
	struct tly_map_row row;
	const char *pmu;
	const char *file;
	int tier;
};

struct cands {
	int n, cap;
	struct cand *v;
};

/* Changed only under the library lock (init, shutdown, PAPI_encode_events,
 * a preset's first resolution). */
static struct {
	int ready;
	struct tly_preset p[PAPI_END_idx];
	/* the embedded rows each preset still has to try, in map order; a
	 * preset is resolved (its avail and note final) once resolved[] is 1 */
	struct cands cand[PAPI_END_idx];
	atomic_int resolved[PAPI_END_idx];
	int npmus;
	const char *pmus[MAX_PRESENT_PMUS]; /* PMUs the enabled components list */
	const char *core_pmu; /* the CPU's core PMU (tly_component.core_pmu); NULL: none */
	int hw_ok;            /* the kernel counts hardware events */
	int generic_forced;   /* TALLY_PRESETS_GENERIC=1 */
} st;

enum { TIER_ALL, TIER_SPECIFIC, TIER_GENERIC };

/* One pass over one map file. */
struct resolve {
	const char *file;
	int replace;    /* rows may replace presets that are already available */
	int allow_star; /* "CPU,*" matches (user files only) */
	int tier;       /* which blocks apply (TIER_*) */
	int matched;    /* rows of matching blocks seen */
	const char *matched_pmu;
};

static void add_pmu(const char *pmu)
{
	for (int i = 0; i < st.npmus; i++)
		if (strcmp(st.pmus[i], pmu) == 0)
			return;
	if (st.npmus < MAX_PRESENT_PMUS)
		st.pmus[st.npmus++] = pmu;
}

static void collect_pmus(void)
{
	st.npmus = 0;
	st.core_pmu = NULL;
	st.hw_ok = 0;
	for (int c = 0; c < tly_num_components; c++) {
		PAPI_component_info_t *info;
		int hw_ok = 0;

		if (tly_cmp_pending(c))   /* not in use: no CPU PMU there (component.h) */
			continue;
		info = tly_cmp_info(c);
		if (tly_cmp_check(c) != PAPI_OK || !info)
			continue;
		for (int i = 0; i < PAPI_PMU_MAX; i++)
			if (info->pmu_names[i])
				add_pmu(info->pmu_names[i]);
		if (tly_components[c]->core_pmu) {
			const char *core = tly_components[c]->core_pmu(&hw_ok);

			st.hw_ok |= hw_ok;
			if (core && !st.core_pmu) {
				st.core_pmu = core;
				add_pmu(core);
			}
		}
	}
}

static int block_is_generic(const struct tly_map_block *blk)
{
	for (int b = 0; b < blk->npmus; b++)
		if (strcmp(blk->pmus[b], TLY_MAP_GENERIC_PMU) == 0)
			return 1;
	return 0;
}

/* The PMU of this block that is present ("*" for a wildcard), or NULL. */
static const char *block_match(const struct tly_map_block *blk, int allow_star)
{
	for (int b = 0; b < blk->npmus; b++) {
		if (allow_star && strcmp(blk->pmus[b], "*") == 0)
			return "*";
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

/* The enabled component's phrase on counting permissions (perm_note hook). */
static int perm_note(char *buf, size_t len)
{
	for (int c = 0; c < tly_num_components; c++)
		if (tly_components[c]->perm_note && !tly_cmp_pending(c) && tly_cmp_check(c) == PAPI_OK &&
		    tly_components[c]->perm_note(buf, len))
			return 1;
	return 0;
}

static void note_rejected(struct tly_preset *np, int rc, const char *where, const char *what)
{
	const char *detail = tly_err_detail()[0] ? tly_err_detail() : tly_err_text(rc);
	char perm[128];
	int has_perm = rc == PAPI_EPERM && perm_note(perm, sizeof perm);

	const char *tag = np->generic ? "generic: " : "";

	np->avail = rc;
	if (!st.hw_ok)
		snprintf(np->note, sizeof np->note,
			 "%snot countable on this machine: the kernel exposes no hardware PMU to program "
			 "the mapping of %s; only software events can be counted", tag, where);
	else if (has_perm)
		snprintf(np->note, sizeof np->note, "%s%s: %s was rejected: %s (%s)",
			 tag, where, what, detail, perm);
	else
		snprintf(np->note, sizeof np->note, "%s%s: %s was rejected: %s", tag, where, what, detail);
}

static void note_mapped(struct tly_preset *np, const char *where, const char *pmu)
{
	if (np->generic && st.generic_forced)
		snprintf(np->note, sizeof np->note,
			 "generic: mapped by %s to the kernel's generic hardware events "
			 "(TALLY_PRESETS_GENERIC=1)", where);
	else if (np->generic)
		snprintf(np->note, sizeof np->note,
			 "generic: mapped by %s to the kernel's generic hardware events (no preset map for "
			 "core PMU %s)", where, st.core_pmu ? st.core_pmu : "(none libpfm4 knows)");
	else
		snprintf(np->note, sizeof np->note, "mapped by %s for PMU %s", where, pmu);
}

/* Build the state a map row gives on this machine into *np. */
static void resolve_row(const struct resolve *rs, const char *pmu,
			const struct tly_map_row *row, struct tly_preset *np)
{
	char where[PAPI_2MAX_STR_LEN];
	int rc;

	memset(np, 0, sizeof *np);
	np->derived = row->derived;
	np->nterms = row->nterms;
	np->generic = rs->tier == TIER_GENERIC;
	snprintf(np->postfix, sizeof np->postfix, "%s", row->postfix);
	np->prog = row->prog;
	snprintf(where, sizeof where, "%s:%d", rs->file, row->line);
	for (int i = 0; i < row->nterms; i++)
		qualify(np->names[i], sizeof np->names[i], pmu, row->natives[i]);
	for (int i = 0; i < row->nterms; i++) {
		tly_err_clear();
		rc = tly_native_lookup_awake(np->names[i], &np->codes[i]);
		if (rc != PAPI_OK) {
			char what[PAPI_2MAX_STR_LEN + 16];

			snprintf(what, sizeof what, "native %s", np->names[i]);
			memset(np->codes, 0, sizeof np->codes);
			note_rejected(np, rc, where, what);
			return;
		}
	}
	tly_err_clear();
	rc = tly_evset_try_natives(np->codes, np->nterms);
	if (rc != PAPI_OK) {
		memset(np->codes, 0, sizeof np->codes);
		note_rejected(np, rc, where, "counting its natives together");
		return;
	}
	np->avail = PAPI_OK;
	note_mapped(np, where, pmu);
}

/* One row of a pass on preset row->idx, matched on pmu. */
static int apply_row(const struct resolve *rs, const char *pmu, const struct tly_map_row *row)
{
	struct tly_preset *cur = &st.p[row->idx];
	struct tly_preset *np;

	if (cur->avail == PAPI_OK && !rs->replace)
		return PAPI_OK;
	np = malloc(sizeof *np);
	if (!np)
		return tly_err_set(PAPI_ENOMEM, "out of memory resolving %s", tly_preset_defs[row->idx].symbol);
	resolve_row(rs, pmu, row, np);
	/* never trade an available mapping for one that does not work; among
	 * embedded rows that do not resolve the first explains best, while a
	 * user file's row (TIER_ALL) says what the user asked for */
	if (np->avail == PAPI_OK ||
	    (cur->avail != PAPI_OK && (cur->nterms == 0 || rs->tier == TIER_ALL)))
		*cur = *np;
	free(np);
	return PAPI_OK;
}

/* An embedded row that applies here, kept for its preset's first use. */
static int keep_row(const struct resolve *rs, const char *pmu, const struct tly_map_row *row)
{
	struct cands *c = &st.cand[row->idx];

	if (c->n == c->cap) {
		int cap = c->cap ? 2 * c->cap : 2;
		struct cand *v = realloc(c->v, (size_t)cap * sizeof *v);

		if (!v)
			return tly_err_set(PAPI_ENOMEM, "out of memory reading the preset maps");
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n++] = (struct cand){ .row = *row, .pmu = pmu, .file = rs->file, .tier = rs->tier };
	return PAPI_OK;
}

/* The embedded rows of preset idx tried on the counters, in map order, as
 * the passes of tly_presets_init would have: done at the preset's first
 * use, since trying every preset costs PAPI_library_init tens of ms (each
 * try opens counters).  Under the library lock. */
static void resolve_pending(int idx)
{
	struct cands *c = &st.cand[idx];

	if (atomic_load_explicit(&st.resolved[idx], memory_order_acquire))
		return;
	for (int i = 0; i < c->n; i++) {
		struct resolve rs = { .file = c->v[i].file, .tier = c->v[i].tier };

		if (apply_row(&rs, c->v[i].pmu, &c->v[i].row) != PAPI_OK && !st.p[idx].note[0])
			snprintf(st.p[idx].note, sizeof st.p[idx].note, "%s", tly_err_detail());
	}
	free(c->v);
	*c = (struct cands){ 0 };
	tly_err_clear();
	atomic_store_explicit(&st.resolved[idx], 1, memory_order_release);
}

static int on_row(void *arg, const struct tly_map_block *blk, const struct tly_map_row *row)
{
	struct resolve *rs = arg;
	const char *pmu;

	if (rs->tier != TIER_ALL && block_is_generic(blk) != (rs->tier == TIER_GENERIC))
		return PAPI_OK;
	pmu = block_match(blk, rs->allow_star);
	if (!pmu)
		return PAPI_OK;
	rs->matched++;
	rs->matched_pmu = pmu;
	if (rs->tier != TIER_ALL)
		return keep_row(rs, pmu, row);
	/* a user file's row meets the preset as the embedded maps made it */
	resolve_pending(row->idx);
	return apply_row(rs, pmu, row);
}

static void embedded_pass(struct resolve *rs, int tier)
{
	rs->tier = tier;
	for (int m = 0; m < tly_num_preset_maps; m++) {
		rs->file = tly_preset_maps[m].file;
		/* A broken embedded map is a build bug the unit tests catch;
		 * the library still comes up, with that file's presets missing. */
		if (tly_map_parse(rs->file, tly_preset_maps[m].text, on_row, rs) != PAPI_OK)
			tly_api_ret(PAPI_EBUG, "tly_presets_init");
	}
}

/* Why a preset no map row reached is unavailable. */
static void note_unmapped(const struct resolve *specific, const struct resolve *generic)
{
	for (int i = 0; i < PAPI_END_idx; i++) {
		struct tly_preset *p = &st.p[i];
		const char *sym = tly_preset_defs[i].symbol;

		if (p->note[0] || st.cand[i].n)
			continue;
		if (!st.hw_ok && !st.core_pmu)
			snprintf(p->note, sizeof p->note, "%s", no_hw_note);
		else if (specific->matched)
			snprintf(p->note, sizeof p->note, "the preset maps have no entry for %s on PMU %s%s",
				 sym, specific->matched_pmu,
				 st.hw_ok ? "" : " (and the kernel exposes no hardware PMU here)");
		else if (generic->matched)
			snprintf(p->note, sizeof p->note,
				 "generic: the kernel's generic hardware events give no %s (%s%s)", sym,
				 st.generic_forced ? "TALLY_PRESETS_GENERIC=1" : "no preset map for core PMU ",
				 st.generic_forced ? "" : st.core_pmu ? st.core_pmu : "(none libpfm4 knows)");
		else if (st.core_pmu)
			snprintf(p->note, sizeof p->note, "no preset mapping for PMU %s%s", st.core_pmu,
				 st.hw_ok ? "" : " (and the kernel exposes no hardware PMU to count it)");
		else
			snprintf(p->note, sizeof p->note,
				 "libpfm4 knows no core PMU for this CPU and the generic perf events are not "
				 "available");
	}
}

static int generic_forced(void)
{
	return tly_setting_flag(TLY_SET_presets_generic);
}

static void drop_cands(void)
{
	for (int i = 0; i < PAPI_END_idx; i++) {
		free(st.cand[i].v);
		st.cand[i] = (struct cands){ 0 };
		atomic_store_explicit(&st.resolved[i], 0, memory_order_relaxed);
	}
}

/* The embedded rows that apply here are found now (text only, cheap); each
 * preset tries them on the counters at its first use (resolve_pending). */
int tly_presets_init(void)
{
	struct resolve specific = { .replace = 0 }, generic = { .replace = 0 };
	int force = generic_forced();

	drop_cands();
	memset(&st, 0, sizeof st);
	st.generic_forced = force;
	for (int i = 0; i < PAPI_END_idx; i++)
		st.p[i].avail = PAPI_ENOEVNT;
	collect_pmus();
	if (!force)
		embedded_pass(&specific, TIER_SPECIFIC);
	if (force || (st.hw_ok && !specific.matched))
		embedded_pass(&generic, TIER_GENERIC);
	note_unmapped(&specific, &generic);
	for (int i = 0; i < PAPI_END_idx; i++)
		if (!st.cand[i].n)
			atomic_store_explicit(&st.resolved[i], 1, memory_order_release);
	st.ready = 1;
	tly_err_clear();
	return PAPI_OK;
}

void tly_presets_shutdown(void)
{
	st.ready = 0;
	st.npmus = 0;
	drop_cands();
}

const struct tly_preset *tly_preset_get(int idx)
{
	if (!st.ready || idx < 0 || idx >= PAPI_END_idx)
		return NULL;
	if (!atomic_load_explicit(&st.resolved[idx], memory_order_acquire)) {
		tly_lib_lock();
		resolve_pending(idx);
		tly_lib_unlock();
	}
	return &st.p[idx];
}

int tly_presets_count_avail(void)
{
	int n = 0;

	for (int i = 0; i < PAPI_END_idx; i++) {
		const struct tly_preset *p = tly_preset_get(i);

		n += p && p->avail == PAPI_OK;
	}
	return n;
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
	struct resolve rs = { .file = path, .replace = replace != 0, .allow_star = 1, .tier = TIER_ALL };
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
