/*
 * test_settings_grammar.c - the settings parser (settings/settings.c):
 * yes/no words, whole numbers and sizes accepted and refused, a refusal's
 * sentence naming the variable and what it accepts, the default kept for
 * a bad value, every default of the table well-formed by its own grammar,
 * a choice's words (any case in, the table's spelling out), and the
 * high-level API's TALLY_QUIET read with that grammar (no: warn), values
 * quoted in messages with their control characters escaped (a newline in
 * a value once split the message), and TALLY_VERBOSE out of range (huge,
 * hexadecimal) refused by the table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/hl_common.h"
#include "tally_shared.h"
#include "tharness.h"

static void check_bool_words(void)
{
	static const struct { int line; const char *in; int want; } rows[] = {
		{ __LINE__, "1", 1 }, { __LINE__, "0", 0 },
		{ __LINE__, "yes", 1 }, { __LINE__, "no", 0 },
		{ __LINE__, "on", 1 }, { __LINE__, "off", 0 },
		{ __LINE__, "true", 1 }, { __LINE__, "false", 0 },
		{ __LINE__, "YES", 1 }, { __LINE__, "Off", 0 }, { __LINE__, "TRUE", 1 },
		{ __LINE__, "y", -1 }, { __LINE__, "n", -1 }, { __LINE__, "2", -1 },
		{ __LINE__, "maybe", -1 }, { __LINE__, "", -1 }, { __LINE__, " yes", -1 },
		{ __LINE__, "yes ", -1 }, { __LINE__, "01", -1 }, { __LINE__, "nope", -1 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(tly_parse_bool(rows[i].in), rows[i].want);
	}
	th_at(0);
	TH_EQ(tly_parse_bool(NULL), -1);
}

static void check_numbers(void)
{
	static const struct { int line; const char *in; int size; long long max, want; } rows[] = {
		{ __LINE__, "0", 0, 999999, 0 },
		{ __LINE__, "42", 0, 999999, 42 },
		{ __LINE__, "999999", 0, 999999, 999999 },
		{ __LINE__, "1000000", 0, 999999, -1 },
		{ __LINE__, "-1", 0, 999999, -1 },
		{ __LINE__, "+1", 0, 999999, -1 },
		{ __LINE__, "abc", 0, 999999, -1 },
		{ __LINE__, "12abc", 0, 999999, -1 },
		{ __LINE__, "1e3", 0, 999999, -1 },
		{ __LINE__, "0x10", 0, 999999, -1 },
		{ __LINE__, "4k", 0, 999999, -1 },        /* a suffix is for sizes only */
		{ __LINE__, "4k", 1, 1LL << 40, 4096 },
		{ __LINE__, "4K", 1, 1LL << 40, 4096 },
		{ __LINE__, "4kB", 1, 1LL << 40, 4096 },
		{ __LINE__, "4KiB", 1, 1LL << 40, 4096 },
		{ __LINE__, "1M", 1, 1LL << 40, 1048576 },
		{ __LINE__, "512MiB", 1, 1LL << 40, 536870912 },
		{ __LINE__, "2G", 1, 1LL << 40, 2147483648LL },
		{ __LINE__, "100b", 1, 1LL << 40, 100 },
		{ __LINE__, "1048576", 1, 1LL << 40, 1048576 },
		{ __LINE__, "0x200000", 1, 1LL << 40, 2097152 },  /* a size may be hexadecimal */
		{ __LINE__, "0X10k", 1, 1LL << 40, 16384 },
		{ __LINE__, "0x", 1, 1LL << 40, -1 },
		{ __LINE__, "0x-1", 1, 1LL << 40, -1 },
		{ __LINE__, "0xg", 1, 1LL << 40, -1 },
		{ __LINE__, "2T", 1, 1LL << 40, -1 },
		{ __LINE__, "4 k", 1, 1LL << 40, -1 },
		{ __LINE__, "4kk", 1, 1LL << 40, -1 },
		{ __LINE__, "4Mi", 1, 1LL << 40, -1 },
		{ __LINE__, "k", 1, 1LL << 40, -1 },
		{ __LINE__, "2G", 1, 1LL << 30, -1 },      /* over the row's max */
		{ __LINE__, "9223372036854775807k", 1, 1LL << 40, -1 },
		{ __LINE__, "99999999999999999999", 1, 1LL << 40, -1 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		long long v = -7;
		int rc = tly_parse_num(rows[i].in, rows[i].size, rows[i].max, &v);

		th_at(rows[i].line);
		TH_EQ(rc, rows[i].want < 0 ? -1 : 0);
		TH_EQ(v, rows[i].want < 0 ? -7 : rows[i].want);   /* untouched when refused */
	}
	th_at(0);
}

/* Every default is well-formed under its own row's grammar, and the
 * table finds each row by name. */
static void check_table(void)
{
	char why[512];
	int n = 0;

	for (int id = 0; id < TLY_NSETTINGS; id++) {
		const struct tly_setting_row *r = tly_setting_row(id);

		TH_CHECK(r && r->env && r->help && *r->help);
		if (!r)
			continue;
		TH_EQ(tly_setting_check(id, r->def, why, sizeof why), 0);
		/* a CHOICE row has its words; no other row has any */
		TH_CHECK((r->kind == TLY_KIND_CHOICE) == (tly_setting_choices(id) != NULL));
		TH_EQ(tly_setting_find(r->env, strlen(r->env)), id);
		n += !strncmp(r->env, "TALLY_", 6);
	}
	TH_CHECK(n >= 50);
	TH_CHECK(tly_setting_row(TLY_NSETTINGS) == NULL && tly_setting_row(-1) == NULL);
	TH_EQ(tly_setting_find("TALLY_QUIETX", 12), -1);
	TH_EQ(tly_setting_find("TALLY_QUIETX", 11), TLY_SET_quiet);
	TH_CHECK(tly_setting_find("PAPI_EVENTS", 11) == TLY_SET_papi_events);
}

/* Values from the environment (NULL: unset), refused ones with their
 * sentence and the default. */
static void check_environment(void)
{
	static const struct {
		int line, id;
		const char *value;
		int rc;
		long long want;
		const char *said;
	} rows[] = {
		{ __LINE__, TLY_SET_quiet, "no", 0, 0, NULL },
		{ __LINE__, TLY_SET_quiet, "On", 0, 1, NULL },
		{ __LINE__, TLY_SET_quiet, "maybe", -1, 0,
		  "TALLY_QUIET='maybe' is not a valid yes/no value (1/0, yes/no, on/off, true/false)" },
		{ __LINE__, TLY_SET_quiet, "", 0, 0, NULL },   /* empty: unset */
		{ __LINE__, TLY_SET_max_depth, "lots", -1, 64,
		  "TALLY_MAX_DEPTH='lots' is not a valid whole number (0..999999)" },
		{ __LINE__, TLY_SET_max_depth, "7", 0, 7, NULL },
		{ __LINE__, TLY_SET_max_depth, NULL, 0, 64, NULL },
		{ __LINE__, TLY_SET_pcsamp_hwbuf, "512M", 0, 536870912, NULL },
		{ __LINE__, TLY_SET_pcsamp_hwbuf, "lots", -1, 0, "TALLY_PCSAMP_HWBUF='lots' is not a valid size" },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const char *env = tly_setting_row(rows[i].id)->env;
		char why[512] = "";
		long long x = -1;
		int b = -1;

		th_at(rows[i].line);
		if (rows[i].value)
			setenv(env, rows[i].value, 1);
		else
			unsetenv(env);
		if (tly_setting_row(rows[i].id)->kind == TLY_KIND_BOOL) {
			TH_EQ(tly_setting_bool(rows[i].id, &b, why, sizeof why), rows[i].rc);
			x = b;
		} else {
			TH_EQ(tly_setting_num(rows[i].id, &x, why, sizeof why), rows[i].rc);
		}
		TH_EQ(x, rows[i].want);
		TH_CHECK(!rows[i].said || strstr(why, rows[i].said) != NULL);
		TH_CHECK(rows[i].value && *rows[i].value ? tly_setting_raw(rows[i].id) != NULL
							 : tly_setting_raw(rows[i].id) == NULL);
		unsetenv(env);
	}
	th_at(0);
	setenv("TALLY_OUTPUT_DIR", "/some/where", 1);
	TH_CHECK(!strcmp(tly_setting_str(TLY_SET_output_dir), "/some/where"));
	unsetenv("TALLY_OUTPUT_DIR");
	TH_CHECK(!strcmp(tly_setting_str(TLY_SET_output_dir), "."));
	TH_CHECK(tly_env_raw("HOME") == getenv("HOME"));
	TH_CHECK(tly_env_raw(NULL) == NULL);
}

/* A choice: one of the row's words in any case, handed on in the table's
 * spelling; anything else refused with the words, the default kept. */
static void check_choices(void)
{
	static const struct {
		int line, id;
		const char *value;
		int rc;
		const char *want, *said;
	} rows[] = {
		{ __LINE__, TLY_SET_children, "measure", 0, "measure", NULL },
		{ __LINE__, TLY_SET_children, "MEASURE", 0, "measure", NULL },
		{ __LINE__, TLY_SET_children, NULL, 0, "exclude", NULL },
		{ __LINE__, TLY_SET_children, "", 0, "exclude", NULL },
		{ __LINE__, TLY_SET_children, "measur", -1, "exclude", "TALLY_CHILDREN='measur' is not one of exclude,measure" },
		{ __LINE__, TLY_SET_children, "measure,", -1, "exclude", "is not one of" },
		{ __LINE__, TLY_SET_children, "exclude,measure", -1, "exclude", "is not one of" },
		{ __LINE__, TLY_SET_pcsamp_mode, "Kernel-Serialized", 0, "kernel-serialized", NULL },
		{ __LINE__, TLY_SET_cuda_cache, "flush", 0, "flush", NULL },
		{ __LINE__, TLY_SET_cuda_cache, "flsh", -1, "flush", "TALLY_CUDA_CACHE='flsh' is not one of none,flush" },
		{ __LINE__, TLY_SET_cuda_replay, NULL, 0, "", NULL },
		{ __LINE__, TLY_SET_cuda_replay, "kernel", 0, "kernel", NULL },
		{ __LINE__, TLY_SET_cuda_replay, "yes", -1, "", "TALLY_CUDA_REPLAY='yes' is not one of kernel" },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		char out[32] = "?", why[512] = "";
		int rc = tly_setting_word(rows[i].id, rows[i].value, out, sizeof out);

		th_at(rows[i].line);
		TH_EQ(rc, rows[i].rc);
		TH_CHECK(!strcmp(out, rows[i].want));
		TH_EQ(tly_setting_check(rows[i].id, rows[i].value, why, sizeof why), rows[i].rc);
		TH_CHECK(!rows[i].said || strstr(why, rows[i].said) != NULL);
		/* the library's reading of the same value from the environment */
		if (rows[i].value)
			setenv(tly_setting_row(rows[i].id)->env, rows[i].value, 1);
		strcpy(out, "?");
		tly_setting_pick(rows[i].id, out, sizeof out);
		TH_CHECK(!strcmp(out, rows[i].want));
		unsetenv(tly_setting_row(rows[i].id)->env);
	}
	th_at(0);
	TH_CHECK(tly_setting_choices(TLY_SET_output_dir) == NULL);
	TH_EQ(tly_setting_word(TLY_SET_output_dir, "x", (char[8]){ 0 }, 8), -1);   /* not a choice */
}

/* The high-level API's warnings: TALLY_QUIET=no keeps them on. */
static void check_quiet(void)
{
	unsetenv("PAPI_NO_WARNING");
	setenv("TALLY_QUIET", "no", 1);
	TH_EQ(tly_hl_quiet(), 0);
	setenv("TALLY_QUIET", "false", 1);
	TH_EQ(tly_hl_quiet(), 0);
	setenv("TALLY_QUIET", "yes", 1);
	TH_EQ(tly_hl_quiet(), 1);
	setenv("TALLY_QUIET", "bogus", 1);   /* said on stderr; the default: warn */
	TH_EQ(tly_hl_quiet(), 0);
	unsetenv("TALLY_QUIET");
	TH_EQ(tly_hl_quiet(), 0);
	setenv("PAPI_NO_WARNING", "1", 1);
	TH_EQ(tly_hl_quiet(), 1);
	unsetenv("PAPI_NO_WARNING");
}

static void check_quote(void)
{
	static const struct { int line; const char *in; size_t len; const char *want; } rows[] = {
		{ __LINE__, "plain", 64, "plain" },
		{ __LINE__, "a\nb", 64, "a\\nb" },
		{ __LINE__, "\x1b[2J\x07", 64, "\\x1b[2J\\x07" },
		{ __LINE__, "t\tr\r\x7f", 64, "t\\tr\\r\\x7f" },
		{ __LINE__, "it's \\ ok", 64, "it's \\ ok" },     /* printable stays as it is */
		{ __LINE__, "0123456789", 8, "0123..." },          /* cut, and said to be */
		{ __LINE__, "\n\n\n", 8, "\\n\\n..." },          /* an escape is never cut */
		{ __LINE__, "", 8, "" },
		{ __LINE__, "abc", 3, "" },                        /* no room even for "..." */
	};
	char out[64], why[256];

	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		memset(out, 'Z', sizeof out);
		TH_CHECK(tly_quote(rows[i].in, out, rows[i].len) == out);
		TH_CHECK(strcmp(out, rows[i].want) == 0);
		TH_CHECK(strlen(out) < rows[i].len);
	}
	th_at(0);
	/* the quoted value reaches the sentence: one line */
	TH_EQ(tly_setting_check(TLY_SET_quiet, "x\ny", why, sizeof why), -1);
	TH_CHECK(strchr(why, '\n') == NULL && strstr(why, "TALLY_QUIET='x\\ny'") != NULL);
	/* TALLY_VERBOSE: a whole number within the table's range only */
	TH_EQ(tly_setting_check(TLY_SET_verbose, "99999999999999999999999", why, sizeof why), -1);
	TH_EQ(tly_setting_check(TLY_SET_verbose, "0x10", why, sizeof why), -1);
	TH_EQ(tly_setting_check(TLY_SET_verbose, "2", why, sizeof why), 0);
}

int main(void)
{
	check_bool_words();
	check_numbers();
	check_table();
	check_environment();
	check_choices();
	check_quiet();
	check_quote();
	return th_done();
}
