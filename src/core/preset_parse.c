/*
 * preset_parse.c - the preset map file parser (format in presets.h), shared
 * by the embedded maps and PAPI_encode_events.
 */
#include "core/preset_parse.h"
#include "core/preset_derive.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/errors.h"

#define MAX_FIELDS (4 + TLY_MAX_TERMS + 1) /* one extra to detect too many */

struct parser {
	const char *file;
	int line;
	int in_presets; /* a PRESET line followed the current CPU lines */
	struct tly_map_block blk;
	tly_map_row_fn fn;
	void *arg;
};

int tly_preset_index(const char *symbol)
{
	if (!symbol)
		return -1;
	for (int i = 0; i < PAPI_END_idx; i++)
		if (strcmp(tly_preset_defs[i].symbol, symbol) == 0)
			return i;
	return -1;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Split at commas in place; *n = number of fields (MAX_FIELDS when more). */
static void split_fields(char *s, char **f, int *n)
{
	*n = 0;
	for (;;) {
		char *c = strchr(s, ',');

		if (c)
			*c = '\0';
		f[(*n)++] = trim(s);
		if (!c || *n == MAX_FIELDS)
			return;
		s = c + 1;
	}
}

static int perr(const struct parser *ps, int code, const char *what, const char *arg)
{
	return tly_err_set(code, "%s:%d: %s%s%s", ps->file, ps->line, what,
			   arg ? " " : "", arg ? arg : "");
}

static int parse_cpu(struct parser *ps, char **f, int n)
{
	if (n < 2)
		return perr(ps, PAPI_EINVAL, "CPU line names no PMU", NULL);
	if (ps->in_presets || ps->blk.npmus == 0) {
		/* a CPU line after PRESET lines starts a new block */
		ps->blk.npmus = 0;
		ps->blk.line = ps->line;
		ps->in_presets = 0;
	}
	for (int i = 1; i < n; i++) {
		if (f[i][0] == '\0')
			return perr(ps, PAPI_EINVAL, "CPU line has an empty PMU name", NULL);
		if (strlen(f[i]) >= PAPI_MIN_STR_LEN)
			return perr(ps, PAPI_EINVAL, "PMU name too long:", f[i]);
		if (ps->blk.npmus == TLY_MAP_MAX_PMUS || n == MAX_FIELDS)
			return perr(ps, PAPI_EINVAL, "too many PMUs in one block", NULL);
		strcpy(ps->blk.pmus[ps->blk.npmus++], f[i]);
	}
	return PAPI_OK;
}

/* How many natives each kind takes: [min, max]. */
static void term_range(int kind, int *min, int *max)
{
	*max = TLY_MAX_TERMS;
	switch (kind) {
	case TLY_NOT_DERIVED: *min = 1; *max = 1; break;
	case TLY_DERIVED_PS: *min = 2; *max = 2; break;
	case TLY_DERIVED_ADD_PS: *min = 3; break;
	case TLY_DERIVED_POSTFIX: *min = 1; break;
	default: *min = 2; break;
	}
}

static int fill_natives(struct parser *ps, struct tly_map_row *row, char **f, int n)
{
	int min, max;

	term_range(row->derived, &min, &max);
	if (n == MAX_FIELDS || n < min || n > max) {
		char what[96];

		snprintf(what, sizeof what, "%s takes %d to %d natives, not %s%d:",
			 tly_derived_name(row->derived), min, max, n == MAX_FIELDS ? "over " : "", n);
		return perr(ps, PAPI_EINVAL, what, tly_preset_defs[row->idx].symbol);
	}
	row->nterms = n;
	for (int i = 0; i < n; i++) {
		if (f[i][0] == '\0')
			return perr(ps, PAPI_EINVAL, "empty native name for", tly_preset_defs[row->idx].symbol);
		if (strlen(f[i]) >= sizeof row->natives[i])
			return perr(ps, PAPI_EINVAL, "native name too long:", f[i]);
		strcpy(row->natives[i], f[i]);
	}
	return PAPI_OK;
}

static int parse_preset(struct parser *ps, char **f, int n)
{
	struct tly_map_row row;
	int first = 3, rc;

	if (ps->blk.npmus == 0)
		return perr(ps, PAPI_EINVAL, "PRESET line before any CPU line", NULL);
	ps->in_presets = 1;
	if (n < 4)
		return perr(ps, PAPI_EINVAL, "PRESET line needs a symbol, a kind and natives", NULL);
	memset(&row, 0, sizeof row);
	row.line = ps->line;
	row.idx = tly_preset_index(f[1]);
	if (row.idx < 0)
		return perr(ps, PAPI_ENOEVNT, "no preset is named", f[1][0] ? f[1] : "(empty)");
	row.derived = tly_derived_kind(f[2]);
	if (row.derived < 0)
		return perr(ps, PAPI_EINVAL, "unknown derived kind", f[2]);
	if (row.derived == TLY_DERIVED_POSTFIX) {
		if (strlen(f[3]) >= sizeof row.postfix)
			return perr(ps, PAPI_EINVAL, "postfix expression too long for", f[1]);
		strcpy(row.postfix, f[3]);
		first = 4;
	}
	rc = fill_natives(ps, &row, f + first, n - first);
	if (rc == PAPI_OK && row.derived == TLY_DERIVED_POSTFIX &&
	    tly_postfix_compile(row.postfix, row.nterms, &row.prog) != PAPI_OK) {
		char why[TLY_ERR_DETAIL_LEN];

		snprintf(why, sizeof why, "%s", tly_err_detail());
		return perr(ps, PAPI_EINVAL, why, NULL);
	}
	if (rc == PAPI_OK && ps->fn)
		rc = ps->fn(ps->arg, &ps->blk, &row);
	return rc;
}

static int parse_line(struct parser *ps, char *line)
{
	char *f[MAX_FIELDS];
	char *hash = strchr(line, '#');
	int n;

	if (hash)
		*hash = '\0';
	if (*trim(line) == '\0')
		return PAPI_OK;
	split_fields(line, f, &n);
	if (strcmp(f[0], "CPU") == 0)
		return parse_cpu(ps, f, n);
	if (strcmp(f[0], "PRESET") == 0)
		return parse_preset(ps, f, n);
	return perr(ps, PAPI_EINVAL, "line is neither CPU nor PRESET:", f[0]);
}

int tly_map_parse(const char *file, const char *text, tly_map_row_fn fn, void *arg)
{
	struct parser ps = { .file = file ? file : "(map)", .fn = fn, .arg = arg };
	char line[TLY_MAP_LINE_MAX];

	if (!text)
		return tly_err_set(PAPI_EINVAL, "%s: no map text", ps.file);
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n");
		int rc;

		ps.line++;
		if (len >= sizeof line)
			return perr(&ps, PAPI_EINVAL, "line longer than the limit of 1023 characters", NULL);
		memcpy(line, p, len);
		line[len] = '\0';
		rc = parse_line(&ps, line);
		if (rc != PAPI_OK)
			return rc;
		p += len;
		if (*p == '\n')
			p++;
	}
	return PAPI_OK;
}
