/*
 * papi_decode - print the preset table as CSV, in the column order
 * PAPI_encode_events reads back:
 *
 *   name,derived,postfix,short_descr,long_descr,note,[native,...]
 *
 *   papi_decode [-a] [-h]      -a: only the presets available here
 *
 * Fields holding a comma, a quote or a newline are quoted (RFC 4180).
 */
#include "util_common.h"

#include <string.h>

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [options]\n"
		"Print the PAPI preset events and their native terms as CSV.\n\n"
		"  -a   only the presets that are available on this machine\n"
		"  -h   this text\n",
		prog);
}

static void csv_field(const char *s, int last)
{
	if (strpbrk(s, ",\"\n\r") == NULL) {
		fputs(s, stdout);
	} else {
		putchar('"');
		for (; *s; s++) {
			if (*s == '"')
				putchar('"');
			putchar(*s);
		}
		putchar('"');
	}
	putchar(last ? '\n' : ',');
}

static void print_preset(const PAPI_event_info_t *info)
{
	unsigned nterms = util_preset_terms(info);
	/* An unavailable preset (count 0) may still name its mapping's natives
	 * (code 0): they are listed, but the derived kind stays empty. */
	int avail = info->count > 0;

	csv_field(info->symbol, 0);
	csv_field(avail ? info->derived : "", 0);
	csv_field(avail ? info->postfix : "", 0);
	csv_field(info->short_descr, 0);
	csv_field(info->long_descr, 0);
	csv_field(info->note, nterms == 0);
	for (unsigned j = 0; j < nterms; j++)
		csv_field(info->name[j], j + 1 == nterms);
}

static int decode(const char *prog, int avail_only)
{
	int code = PAPI_PRESET_MASK, rows = 0;
	PAPI_event_info_t info;

	if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK)
		return util_error(prog, "the library reports no preset events");
	printf("name,derived,postfix,short_descr,long_descr,note,[native,...]\n");
	do {
		if (avail_only && PAPI_query_event(code) != PAPI_OK)
			continue;
		memset(&info, 0, sizeof(info));
		if (PAPI_get_event_info(code, &info) != PAPI_OK)
			continue;
		print_preset(&info);
		rows++;
	} while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
	if (rows == 0 && avail_only) {
		fprintf(stderr, "%s: no preset events are available on this machine\n", prog);
		util_print_hw_notes(stderr, "  reason: ");
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *prog = "papi_decode";
	int avail_only = 0, rc;

	for (int i = 1; i < argc; i++) {
		if (util_opt_is(argv[i], "-a", NULL)) {
			avail_only = 1;
		} else if (util_opt_is(argv[i], "-h", "--help")) {
			usage(stdout, prog);
			return 0;
		} else {
			return util_bad_option(prog, argv[i]);
		}
	}
	util_init(prog);
	rc = decode(prog, avail_only);
	PAPI_shutdown();
	return rc;
}
