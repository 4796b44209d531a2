/*
 * settings.c - the one parser of Tally's settings (settings.def), for
 * libtally, the runtime and tally-run alike, and the one reader of the
 * environment: the only file of src/ and wrappers/ that calls getenv
 * (ctest layout_getenv checks it).  Other software's variables (HOME,
 * TMPDIR, OMPI_*, SLURM_*...) and the markers the runtime leaves for its
 * own child processes (TALLY_INTERNAL_*) are read with tly_env_raw.
 *
 * One grammar: yes/no is 1/0, yes/no, on/off, true/false in any case;
 * a whole number is decimal digits; a size is a whole number of bytes
 * (decimal, or hexadecimal after 0x) with an optional k, M or G suffix
 * (binary multiples; kB, KiB, MB... too); a choice is one word of its
 * row's list, in any case, handed on in the table's spelling.  An
 * empty value is an unset one.  Anything else is malformed: the caller
 * gets a sentence naming the variable and what it accepts, and the
 * default.  Nothing here allocates or keeps state.
 */
#include "settings/settings.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct tly_setting_row rows[TLY_NSETTINGS] = {
#define TLY_SETTING(field, env, kind, def, max, help) \
	{ #env, def, help, TLY_KIND_##kind, max },
#include "settings/settings.def"
#undef TLY_SETTING
};

/* The words of each CHOICE row (TLY_CHOICES lines of the table). */
static const char *const choices[TLY_NSETTINGS] = {
#define TLY_SETTING(field, env, kind, def, max, help)
#define TLY_CHOICES(field, words) [TLY_SET_##field] = words,
#include "settings/settings.def"
#undef TLY_CHOICES
#undef TLY_SETTING
};

const struct tly_setting_row *tly_setting_row(int id)
{
	return id >= 0 && id < TLY_NSETTINGS ? &rows[id] : NULL;
}

int tly_setting_find(const char *name, size_t n)
{
	for (int i = 0; i < TLY_NSETTINGS; i++)
		if (strlen(rows[i].env) == n && !strncmp(rows[i].env, name, n))
			return i;
	return -1;
}

const char *tly_env_raw(const char *name)
{
	return name ? getenv(name) : NULL;
}

int tly_launcher_rank(void)
{
	static const char *const vars[][2] = { { "RANK", "WORLD_SIZE" }, { "OMPI_COMM_WORLD_RANK", NULL },
					       { "PMIX_RANK", NULL }, { "PMI_RANK", NULL }, { "SLURM_PROCID", NULL },
					       { "MV2_COMM_WORLD_RANK", NULL }, { "PALS_RANKID", NULL } };

	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
		const char *v = getenv(vars[i][0]);
		char *end;
		long r;

		if (!v || !*v || (vars[i][1] && !getenv(vars[i][1])))
			continue;
		r = strtol(v, &end, 10);
		if (!*end && r >= 0 && r <= 100000000)
			return (int)r;
	}
	return -1;
}

extern char **environ;

void tly_env_each(void (*fn)(const char *entry, void *arg), void *arg)
{
	for (char **e = environ; e && *e; e++)
		fn(*e, arg);
}

char **tly_env_all(void)
{
	return environ;
}

const char *tly_setting_raw(int id)
{
	const char *v = id >= 0 && id < TLY_NSETTINGS ? getenv(rows[id].env) : NULL;

	return v && *v ? v : NULL;
}

int tly_parse_bool(const char *s)
{
	static const char *const yes[] = { "1", "yes", "on", "true" };
	static const char *const no[] = { "0", "no", "off", "false" };

	for (size_t i = 0; s && i < sizeof yes / sizeof *yes; i++) {
		if (!strcasecmp(s, yes[i]))
			return 1;
		if (!strcasecmp(s, no[i]))
			return 0;
	}
	return -1;
}

/* The multiplier of a size suffix (b, k, kB, KiB, M, MiB, G...), 0 when
 * it is none. */
static long long size_unit(const char *u)
{
	static const char *const forms[] = { "", "b", "ib" };
	static const char units[] = "kmg";
	const char *p = *u ? strchr(units, tolower((unsigned char)*u)) : NULL;

	if (!strcasecmp(u, "b"))
		return 1;
	for (size_t i = 0; p && i < sizeof forms / sizeof *forms; i++)
		if (!strcasecmp(u + 1, forms[i]))
			return 1LL << (10 * (p - units + 1));
	return 0;
}

int tly_parse_num(const char *s, int size, long long max, long long *out)
{
	char *end;
	long long x, unit = 1;

	int hex = size && s && s[0] == '0' && (s[1] | 0x20) == 'x';

	if (!s || *s < '0' || *s > '9' || (hex && !isxdigit((unsigned char)s[2])))
		return -1;
	errno = 0;
	x = strtoll(hex ? s + 2 : s, &end, hex ? 16 : 10);
	if (errno)
		return -1;
	if (*end) {
		unit = size ? size_unit(end) : 0;
		if (!unit || x > LLONG_MAX / unit)
			return -1;
	}
	x *= unit;
	if (x > max)
		return -1;
	*out = x;
	return 0;
}

const char *tly_setting_choices(int id)
{
	const struct tly_setting_row *r = tly_setting_row(id);

	return r && r->kind == TLY_KIND_CHOICE ? choices[id] : NULL;
}

/* The word of the comma-separated list `words` that s spells (any case):
 * its start, with its length in *n; NULL when none. */
static const char *find_word(const char *words, const char *s, size_t *n)
{
	size_t want = strlen(s);

	for (const char *p = words; p && *p;) {
		size_t len = strcspn(p, ",");

		if (len == want && !strncasecmp(p, s, len)) {
			*n = len;
			return p;
		}
		p += len + (p[len] == ',');
	}
	return NULL;
}

int tly_setting_word(int id, const char *v, char *out, size_t len)
{
	const struct tly_setting_row *r = tly_setting_row(id);
	const char *w = tly_setting_choices(id);
	size_t n = 0;
	const char *hit = v && *v && w ? find_word(w, v, &n) : NULL;

	if (!len)
		return -1;
	snprintf(out, len, "%s", r ? r->def : "");
	if (hit)
		snprintf(out, len, "%.*s", (int)n, hit);
	return !v || !*v || hit ? 0 : -1;
}

/* One byte of a value as it is shown: itself, or an escape. */
static int quote_byte(unsigned char c, char *out)
{
	static const char named[] = { '\n', 'n', '\t', 't', '\r', 'r' };

	for (size_t i = 0; i < sizeof named; i += 2)
		if (c == (unsigned char)named[i])
			return snprintf(out, 5, "\\%c", named[i + 1]);
	if (c < 0x20 || c == 0x7f)
		return snprintf(out, 5, "\\x%02x", c);
	out[0] = (char)c;
	return 1;
}

const char *tly_quote(const char *v, char *out, size_t len)
{
	size_t n = 0;
	char one[5];

	if (len < 4) {
		if (len)
			out[0] = 0;
		return out;
	}
	for (; v && *v; v++) {
		int k = quote_byte((unsigned char)*v, one);

		if (n + (size_t)k + 4 > len) {   /* room for "..." and the NUL */
			memcpy(out + n, "...", 3);
			n += 3;
			break;
		}
		memcpy(out + n, one, (size_t)k);
		n += (size_t)k;
	}
	out[n] = 0;
	return out;
}

int tly_setting_check(int id, const char *v, char *why, size_t len)
{
	const struct tly_setting_row *r = tly_setting_row(id);
	long long x;
	char q[160];

	if (!r || !v || !*v)
		return 0;
	tly_quote(v, q, sizeof q);
	switch (r->kind) {
	case TLY_KIND_BOOL:
		if (tly_parse_bool(v) >= 0)
			return 0;
		snprintf(why, len, "%s='%s' is not a valid yes/no value (1/0, yes/no, on/off, true/false)",
			 r->env, q);
		return -1;
	case TLY_KIND_INT:
		if (tly_parse_num(v, 0, r->max, &x) == 0)
			return 0;
		snprintf(why, len, "%s='%s' is not a valid whole number (0..%lld)", r->env, q, r->max);
		return -1;
	case TLY_KIND_SIZE:
		if (tly_parse_num(v, 1, r->max, &x) == 0)
			return 0;
		snprintf(why, len, "%s='%s' is not a valid size (bytes, with an optional k, M or G suffix; "
			 "at most %lld)", r->env, q, r->max);
		return -1;
	case TLY_KIND_CHOICE: {
		size_t n;

		if (find_word(choices[id], v, &n))
			return 0;
		snprintf(why, len, "%s='%s' is not one of %s", r->env, q, choices[id] ? choices[id] : "(none)");
		return -1;
	}
	default:
		return 0;
	}
}

const char *tly_setting_str(int id)
{
	const char *v = tly_setting_raw(id);

	return v ? v : id >= 0 && id < TLY_NSETTINGS ? rows[id].def : "";
}

int tly_setting_bool(int id, int *out, char *why, size_t len)
{
	const struct tly_setting_row *r = tly_setting_row(id);
	const char *v = tly_setting_raw(id);
	int rc = tly_setting_check(id, v, why, len);

	*out = r && tly_parse_bool(rc != 0 || !v ? r->def : v) == 1;
	return r ? rc : -1;
}

int tly_setting_num(int id, long long *out, char *why, size_t len)
{
	const struct tly_setting_row *r = tly_setting_row(id);
	const char *v = tly_setting_raw(id);
	int rc = tly_setting_check(id, v, why, len);

	*out = 0;
	if (!r)
		return -1;
	if (tly_parse_num(rc != 0 || !v ? r->def : v, r->kind == TLY_KIND_SIZE, r->max, out) != 0)
		*out = 0;
	return rc;
}

/* A row only tally-report reads (its help starts so): not a setting of
 * the measured run. */
static int report_only(int id)
{
	return !strncmp(rows[id].help, "tally-report", 12);
}

size_t tly_settings_given(char *buf, size_t len)
{
	size_t at = 0;
	char q[1024];

	if (!len)
		return 0;
	buf[0] = '\0';
	for (int id = 0; id < TLY_NSETTINGS; id++) {
		const char *v = tly_setting_raw(id);
		int n;

		if (!v || report_only(id))
			continue;
		n = snprintf(buf + at, len - at, "%s=%s\n", rows[id].env, tly_quote(v, q, sizeof q));
		if (n < 0 || (size_t)n >= len - at) {
			/* never half a line: the ones that fit, and a mark */
			buf[at] = '\0';
			if (at + 4 < len)
				snprintf(buf + at, len - at, "...\n");
			break;
		}
		at += (size_t)n;
	}
	return at;
}
