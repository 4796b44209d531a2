/*
 * papi_native_avail - list the native events of every component, with
 * their qualifiers (unit masks), or everything about one event (-e).
 *
 *   papi_native_avail [-c] [-e EVENT] [-i STR] [-x STR] [--noumasks] [-h]
 */
#include "util_common.h"

#include <string.h>

struct native_opts {
	int check;          /* -c: list only events that can be added to a set */
	int noumasks;       /* --noumasks: omit the qualifiers */
	const char *event;  /* -e */
	const char *include; /* -i: only names containing this */
	const char *exclude; /* -x: skip names containing this */
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [options]\n"
		"List the native events of every active component and their qualifiers.\n\n"
		"  -c, --check       list only the events that can be added to an event set\n"
		"  -e EVENT          everything known about one native event\n"
		"  -i STR            list only events whose name contains STR\n"
		"  -x STR            leave out events whose name contains STR\n"
		"  --noumasks        do not list qualifiers (unit masks); alias --noqual\n"
		"  -h, --help        this text\n",
		prog);
}

static int parse_value(const char *prog, int argc, char **argv, int *i, const char **dst)
{
	char sopt[3] = {argv[*i][0], argv[*i][1], '\0'};

	*dst = util_opt_value(prog, argc, argv, i, sopt, NULL);
	return *dst ? 0 : 1;
}

/* 0: go on, 1: error, 2: help printed. */
static int parse_args(const char *prog, int argc, char **argv, struct native_opts *o)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (util_opt_is(a, "-c", "--check")) {
			o->check = 1;
		} else if (util_opt_is(a, NULL, "--noumasks") || util_opt_is(a, NULL, "--noqual")) {
			o->noumasks = 1;
		} else if (util_opt_is(a, "-h", "--help")) {
			usage(stdout, prog);
			return 2;
		} else if (strncmp(a, "-e", 2) == 0) {
			if (parse_value(prog, argc, argv, &i, &o->event))
				return 1;
		} else if (strncmp(a, "-i", 2) == 0) {
			if (parse_value(prog, argc, argv, &i, &o->include))
				return 1;
		} else if (strncmp(a, "-x", 2) == 0) {
			if (parse_value(prog, argc, argv, &i, &o->exclude))
				return 1;
		} else {
			util_bad_option(prog, a);
			return 1;
		}
	}
	return 0;
}

/* PAPI_OK when the event can be added to an empty event set. */
static int try_add(int code)
{
	int set = PAPI_NULL, rc = PAPI_create_eventset(&set);

	if (rc != PAPI_OK)
		return rc;
	rc = PAPI_add_event(set, code);
	PAPI_cleanup_eventset(set);
	PAPI_destroy_eventset(&set);
	return rc;
}

static void print_umasks(int code, const char *base)
{
	int ucode = code;
	size_t blen = strlen(base);
	PAPI_event_info_t info;

	if (PAPI_enum_event(&ucode, PAPI_NTV_ENUM_UMASKS) != PAPI_OK)
		return;
	printf("    Qualifiers:\n");
	do {
		const char *name = info.symbol;

		memset(&info, 0, sizeof(info));
		if (PAPI_get_event_info(ucode, &info) != PAPI_OK)
			continue;
		if (strncmp(name, base, blen) == 0 && name[blen] == ':')
			name += blen;
		printf("      %-30s %s\n", name, info.long_descr);
	} while (PAPI_enum_event(&ucode, PAPI_NTV_ENUM_UMASKS) == PAPI_OK);
}

static void print_event(int code, const PAPI_event_info_t *info, int umasks)
{
	printf("%s\n", info->symbol);
	if (info->long_descr[0])
		printf("    %s\n", info->long_descr);
	if (info->units[0])
		printf("    Units: %s\n", info->units);
	if (umasks)
		print_umasks(code, info->symbol);
}

static int wanted(const struct native_opts *o, int code, const PAPI_event_info_t *info)
{
	if (o->include && !strstr(info->symbol, o->include))
		return 0;
	if (o->exclude && strstr(info->symbol, o->exclude))
		return 0;
	return !o->check || try_add(code) == PAPI_OK;
}

static int list_component(const struct native_opts *o, int cidx)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(cidx);
	int code = PAPI_NATIVE_MASK, n = 0;
	PAPI_event_info_t info;

	if (!ci)
		return 0;
	util_rule(stdout, '=');
	printf("Component %d: %s - %s\n", cidx, ci->name, ci->description);
	if (ci->disabled) {
		printf("  disabled: %s\n", ci->disabled_reason[0] ? ci->disabled_reason : "no reason given");
		return 0;
	}
	if (ci->disabled_reason[0])
		printf("  Note: %s\n", ci->disabled_reason);
	util_rule(stdout, '=');
	if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK)
		return 0;
	do {
		memset(&info, 0, sizeof(info));
		if (PAPI_get_event_info(code, &info) != PAPI_OK || !wanted(o, code, &info))
			continue;
		print_event(code, &info, !o->noumasks);
		util_rule(stdout, '-');
		n++;
	} while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
	return n;
}

static int show_one(const char *prog, const char *name)
{
	int code, rc;
	PAPI_event_info_t info;
	const PAPI_component_info_t *ci;

	if (util_event_code(prog, name, &code) != PAPI_OK)
		return 1;
	if (!IS_NATIVE(code))
		return util_error(prog, "'%s' is not a native event (papi_avail -e shows presets)", name);
	memset(&info, 0, sizeof(info));
	rc = PAPI_get_event_info(code, &info);
	if (rc != PAPI_OK)
		return util_error(prog, "no information for '%s': %s", name, PAPI_strerror(rc));
	ci = PAPI_get_component_info(info.component_index);
	printf("%-18s: %s\n", "Event name", info.symbol);
	printf("%-18s: 0x%08x\n", "Event code", info.event_code);
	printf("%-18s: %d (%s)\n", "Component", info.component_index, ci ? ci->name : "?");
	printf("%-18s: %s\n", "Description", info.long_descr);
	if (info.units[0])
		printf("%-18s: %s\n", "Units", info.units);
	rc = try_add(code);
	printf("%-18s: %s\n", "Can be counted", rc == PAPI_OK ? "yes" : PAPI_strerror(rc));
	print_umasks(code, info.symbol);
	return 0;
}

int main(int argc, char **argv)
{
	const char *prog = "papi_native_avail";
	struct native_opts o = {0};
	int rc = parse_args(prog, argc, argv, &o), total = 0;

	if (rc)
		return rc == 2 ? 0 : 1;
	util_init(prog);
	if (o.event) {
		rc = show_one(prog, o.event);
		PAPI_shutdown();
		return rc;
	}
	printf("Native events of every component plus hardware information.\n");
	util_rule(stdout, '-');
	util_print_version(stdout);
	util_print_hw_summary(stdout);
	for (int c = 0; c < PAPI_num_components(); c++)
		total += list_component(&o, c);
	printf("Total events reported: %d\n", total);
	PAPI_shutdown();
	return 0;
}
