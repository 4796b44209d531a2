/*
 * papi_event_chooser - which events can still be added to an event set that
 * already holds the given ones?  Each candidate is tried with
 * PAPI_add_event and removed again.
 *
 *   papi_event_chooser [PRESET|NATIVE] EVENT [EVENT...]
 *
 * PRESET lists compatible presets, NATIVE compatible native events (with
 * their qualifiers); with neither, both are listed.
 */
#include "util_common.h"

#include <string.h>

enum chooser_kind { KIND_BOTH, KIND_PRESET, KIND_NATIVE };

struct chooser {
	int set;
	int *given;  /* codes of the events already in the set */
	int ngiven;
	int found;
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [PRESET|NATIVE] EVENT [EVENT...]\n"
		"List the events that can be added to an event set holding EVENT...\n\n"
		"  PRESET   list compatible preset events\n"
		"  NATIVE   list compatible native events\n"
		"  (neither: list both)\n"
		"  -h       this text\n",
		prog);
}

static int is_given(const struct chooser *c, int code)
{
	for (int i = 0; i < c->ngiven; i++)
		if (c->given[i] == code)
			return 1;
	return 0;
}

/* Print the candidate when it fits next to the given events. */
static void try_candidate(struct chooser *c, int code, const char *indent)
{
	PAPI_event_info_t info;

	if (is_given(c, code) || PAPI_add_event(c->set, code) != PAPI_OK)
		return;
	PAPI_remove_event(c->set, code);
	memset(&info, 0, sizeof(info));
	if (PAPI_get_event_info(code, &info) != PAPI_OK)
		return;
	printf("%s%-40s %s\n", indent, info.symbol, info.long_descr);
	c->found++;
}

static void list_presets(struct chooser *c)
{
	int code = PAPI_PRESET_MASK, before = c->found;

	printf("Compatible preset events:\n");
	if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) == PAPI_OK) {
		do {
			if (PAPI_query_event(code) == PAPI_OK)
				try_candidate(c, code, "  ");
		} while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
	}
	if (c->found == before)
		printf("  (none)\n");
}

static void list_cmp_natives(struct chooser *c, int cidx)
{
	int code = PAPI_NATIVE_MASK;

	if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK)
		return;
	do {
		int ucode = code;

		try_candidate(c, code, "  ");
		if (PAPI_enum_cmp_event(&ucode, PAPI_NTV_ENUM_UMASKS, cidx) != PAPI_OK)
			continue;
		do
			try_candidate(c, ucode, "      ");
		while (PAPI_enum_cmp_event(&ucode, PAPI_NTV_ENUM_UMASKS, cidx) == PAPI_OK);
	} while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
}

static void list_natives(struct chooser *c)
{
	int before = c->found;

	printf("Compatible native events:\n");
	for (int cidx = 0; cidx < PAPI_num_components(); cidx++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);

		if (ci && !ci->disabled)
			list_cmp_natives(c, cidx);
	}
	if (c->found == before)
		printf("  (none)\n");
}

static int fill_set(const char *prog, struct chooser *c, int first, int argc, char **argv)
{
	int rc = PAPI_create_eventset(&c->set);

	if (rc != PAPI_OK)
		return util_error(prog, "PAPI_create_eventset: %s", PAPI_strerror(rc));
	printf("Event set holds:");
	for (int i = first; i < argc; i++) {
		int code;

		if (util_event_code(prog, argv[i], &code) != PAPI_OK)
			return 1;
		rc = PAPI_add_event(c->set, code);
		if (rc != PAPI_OK)
			return util_error(prog, "cannot add event '%s': %s", argv[i], PAPI_strerror(rc));
		c->given[c->ngiven++] = code;
		printf(" %s", argv[i]);
	}
	printf("\n");
	util_rule(stdout, '-');
	return 0;
}

static int choose(const char *prog, enum chooser_kind kind, int first, int argc, char **argv)
{
	int given[PAPI_MAX_PRESET_EVENTS];
	struct chooser c = {PAPI_NULL, given, 0, 0};
	int rc;

	if (argc - first > PAPI_MAX_PRESET_EVENTS)
		return util_error(prog, "too many events (at most %d)", PAPI_MAX_PRESET_EVENTS);
	rc = fill_set(prog, &c, first, argc, argv);
	if (rc == 0) {
		if (kind != KIND_NATIVE)
			list_presets(&c);
		if (kind != KIND_PRESET)
			list_natives(&c);
		util_rule(stdout, '-');
		printf("Total events reported: %d\n", c.found);
	}
	if (c.set != PAPI_NULL) {
		PAPI_cleanup_eventset(c.set);
		PAPI_destroy_eventset(&c.set);
	}
	return rc;
}

int main(int argc, char **argv)
{
	const char *prog = "papi_event_chooser";
	enum chooser_kind kind = KIND_BOTH;
	int first = 1, rc;

	if (argc > 1 && util_opt_is(argv[1], "-h", "--help")) {
		usage(stdout, prog);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "PRESET") == 0)
		kind = KIND_PRESET, first = 2;
	else if (argc > 1 && strcmp(argv[1], "NATIVE") == 0)
		kind = KIND_NATIVE, first = 2;
	if (first >= argc) {
		usage(stderr, prog);
		return util_error(prog, "no events given");
	}
	util_init(prog);
	rc = choose(prog, kind, first, argc, argv);
	PAPI_shutdown();
	return rc;
}
