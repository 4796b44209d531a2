/*
 * papi_avail - list the PAPI preset events, whether this machine can count
 * them, and (with -e) everything known about one preset or native event.
 *
 *   papi_avail [-a] [-d] [-t] [-e EVENT] [-h]
 */
#include "util_common.h"

#include <stdlib.h>
#include <string.h>

struct avail_opts {
	int avail_only; /* -a */
	int detail;     /* -d */
	const char *event; /* -e */
};

#define MAX_NOTES 32

/* The table names each distinct note once, below it: a reason shared by
 * a hundred presets (a PMU the kernel does not expose) is one line, not
 * a hundred. */
struct avail_counts {
	int possible, available, derived;
	int first_note; /* why the first unavailable preset is: index + 1 */
	int nnotes, listed; /* listed: the Notes list was printed */
	char notes[MAX_NOTES][PAPI_HUGE_STR_LEN];
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [options]\n"
		"List the PAPI preset events and whether this machine can count them.\n\n"
		"  -a, --avail      list only the presets that are available here\n"
		"  -d, --detail     one block per preset with all its fields and native terms\n"
		"  -t, --table      one line per preset (the default)\n"
		"  -e EVENT         everything known about one preset or native event\n"
		"  -h, --help       this text\n",
		prog);
}

/* 0: go on, 1: error, 2: help printed. */
static int parse_args(const char *prog, int argc, char **argv, struct avail_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (util_opt_is(a, "-a", "--avail")) {
			o->avail_only = 1;
		} else if (util_opt_is(a, "-d", "--detail")) {
			o->detail = 1;
		} else if (util_opt_is(a, "-t", "--table")) {
			o->detail = 0;
		} else if (util_opt_is(a, "-h", "--help")) {
			usage(stdout, prog);
			return 2;
		} else if (strncmp(a, "-e", 2) == 0 || strncmp(a, "--event", 7) == 0) {
			o->event = util_opt_value(prog, argc, argv, &i, "-e", "--event");
			if (!o->event)
				return 1;
		} else {
			util_bad_option(prog, a);
			return 1;
		}
	}
	return 0;
}

static void print_terms(const PAPI_event_info_t *info)
{
	unsigned n = util_preset_terms(info);

	for (unsigned j = 0; j < n; j++)
		if (info->code[j])
			printf("   Native term %u   : 0x%08x  %s\n", j, info->code[j], info->name[j]);
		else
			printf("   Native term %u   : (not countable)  %s\n", j, info->name[j]);
}

static void print_detail(const PAPI_event_info_t *info, int avail)
{
	unsigned nterms = util_preset_terms(info);

	printf("%-20s: %s\n", "Event name", info->symbol);
	printf("%-20s: 0x%08x\n", "Event code", info->event_code);
	printf("%-20s: %s\n", "Available", avail == PAPI_OK ? "yes" : nterms ? "no: not countable on this machine" : "no");
	if (avail != PAPI_OK)
		printf("%-20s: %s\n", "Query result", PAPI_strerror(avail));
	printf("%-20s: %s\n", "Short description", info->short_descr);
	printf("%-20s: %s\n", "Long description", info->long_descr);
	printf("%-20s: %s\n", "Derived", info->derived[0] ? info->derived : "-");
	printf("%-20s: %s\n", "Postfix", info->postfix[0] ? info->postfix : "-");
	printf("%-20s: %u\n", "Native terms", nterms);
	print_terms(info);
	if (info->note[0])
		printf("%-20s: %s\n", "Note", info->note);
	printf("\n");
}

/* The note's number (1-based) in the table's list, added when new; 0 for
 * none, or when the list is full (the row then carries the note itself). */
static int note_index(struct avail_counts *n, const char *note)
{
	if (!note[0])
		return 0;
	for (int i = 0; i < n->nnotes; i++)
		if (!strcmp(n->notes[i], note))
			return i + 1;
	if (n->nnotes == MAX_NOTES)
		return 0;
	snprintf(n->notes[n->nnotes], sizeof n->notes[0], "%s", note);
	return ++n->nnotes;
}

static void print_row(const PAPI_event_info_t *info, int avail, struct avail_counts *n)
{
	int k = note_index(n, info->note);

	printf("%-13s 0x%08x  %-3s   %-3s  %s", info->symbol, info->event_code,
	       avail == PAPI_OK ? "Yes" : "No", util_info_is_derived(info) ? "Yes" : "No",
	       info->long_descr);
	if (k)
		printf(" (note %d)", k);
	else if (info->note[0])
		printf(" (%s)", info->note);
	printf("\n");
}

static void print_notes(struct avail_counts *n)
{
	n->listed = n->nnotes > 0;
	if (n->nnotes)
		printf("\nNotes:\n");
	for (int i = 0; i < n->nnotes; i++)
		printf("  (note %d) %s\n", i + 1, n->notes[i]);
}

static void preset_info(int code, PAPI_event_info_t *info)
{
	memset(info, 0, sizeof(*info));
	if (PAPI_get_event_info(code, info) != PAPI_OK) {
		/* Still show the row: name from the code, no description. */
		info->event_code = (unsigned)code;
		if (PAPI_event_code_to_name(code, info->symbol) != PAPI_OK)
			snprintf(info->symbol, sizeof(info->symbol), "0x%08x", (unsigned)code);
	}
}

static void list_presets(const struct avail_opts *o, struct avail_counts *n)
{
	int code = PAPI_PRESET_MASK;
	PAPI_event_info_t info;

	if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK)
		return;
	if (!o->detail)
		printf("%-13s %-10s  %-5s %-4s %s\n", "Name", "Code", "Avail", "Deriv",
		       "Description (Note)");
	do {
		int avail = PAPI_query_event(code);

		preset_info(code, &info);
		n->possible++;
		if (avail == PAPI_OK) {
			n->available++;
			n->derived += util_info_is_derived(&info);
		} else if (!n->first_note && info.note[0]) {
			n->first_note = note_index(n, info.note);
		}
		if (o->avail_only && avail != PAPI_OK)
			continue;
		if (o->detail)
			print_detail(&info, avail);
		else
			print_row(&info, avail, n);
	} while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
	if (!o->detail)
		print_notes(n);
}

static void print_summary(const struct avail_counts *n)
{
	util_rule(stdout, '-');
	printf("Of %d possible preset events, %d are available, of which %d are derived.\n",
	       n->possible, n->available, n->derived);
	if (n->available > 0)
		return;
	printf("No preset events can be counted on this machine.\n");
	if (util_print_hw_notes(stdout, "Reason: ") > 0 || !n->first_note)
		return;
	if (n->listed)
		printf("Reason: note %d above\n", n->first_note);
	else
		printf("Reason: %s\n", n->notes[n->first_note - 1]);
}

static void print_native_umasks(int code)
{
	int ucode = code;
	PAPI_event_info_t info;

	if (PAPI_enum_event(&ucode, PAPI_NTV_ENUM_UMASKS) != PAPI_OK)
		return;
	printf("%-20s:\n", "Qualifiers");
	do {
		memset(&info, 0, sizeof(info));
		if (PAPI_get_event_info(ucode, &info) == PAPI_OK)
			printf("   %-40s %s\n", info.symbol, info.long_descr);
	} while (PAPI_enum_event(&ucode, PAPI_NTV_ENUM_UMASKS) == PAPI_OK);
}

static void print_native(int code, const PAPI_event_info_t *info)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(info->component_index);
	int avail = PAPI_query_event(code);

	printf("%-20s: %s\n", "Event name", info->symbol);
	printf("%-20s: 0x%08x\n", "Event code", info->event_code);
	printf("%-20s: %s\n", "Available", avail == PAPI_OK ? "yes" : PAPI_strerror(avail));
	printf("%-20s: %d (%s)\n", "Component", info->component_index, ci ? ci->name : "?");
	printf("%-20s: %s\n", "Description", info->long_descr);
	if (info->units[0])
		printf("%-20s: %s\n", "Units", info->units);
	print_native_umasks(code);
}

static int show_event(const char *prog, const char *name)
{
	int code, rc;
	PAPI_event_info_t info;

	if (util_event_code(prog, name, &code) != PAPI_OK)
		return 1;
	memset(&info, 0, sizeof(info));
	rc = PAPI_get_event_info(code, &info);
	if (rc != PAPI_OK)
		return util_error(prog, "no information for '%s': %s", name, PAPI_strerror(rc));
	if (IS_NATIVE(code))
		print_native(code, &info);
	else
		print_detail(&info, PAPI_query_event(code));
	return 0;
}

static void print_header(void)
{
	printf("Available PAPI preset events plus hardware information.\n");
	util_rule(stdout, '-');
	util_print_version(stdout);
	util_print_hw_summary(stdout);
	if (util_print_hw_notes(stdout, "Note: ") > 0)
		printf("\n");
	util_rule(stdout, '-');
}

int main(int argc, char **argv)
{
	const char *prog = "papi_avail";
	struct avail_opts o = {0};
	struct avail_counts n = {0};
	int rc = parse_args(prog, argc, argv, &o);

	if (rc)
		return rc == 2 ? 0 : 1;
	util_init(prog);
	if (o.event) {
		rc = show_event(prog, o.event);
		PAPI_shutdown();
		return rc;
	}
	print_header();
	list_presets(&o, &n);
	print_summary(&n);
	PAPI_shutdown();
	return n.possible > 0 ? 0 : util_error(prog, "the library reports no preset events");
}
