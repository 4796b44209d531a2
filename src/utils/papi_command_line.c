/*
 * papi_command_line - count the events named on the command line (presets
 * or natives) over a small workload and print each count.
 *
 *   papi_command_line [-u] [-x] EVENT [EVENT...]
 *
 * Events that cannot be added are reported with the reason and skipped;
 * the rest are still counted.  Exit status: 0 when every event was
 * counted, 1 otherwise.
 */
#include "util_common.h"

#include <stdlib.h>
#include <string.h>

#define CMDLINE_WORK_PAGES 1024

enum print_fmt { FMT_SIGNED, FMT_UNSIGNED, FMT_HEX };

struct cmdline {
	int set;
	int n;              /* events added */
	int failed;         /* events that could not be added */
	const char **names; /* names[i] of the i-th added event */
	long long *values;
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [options] EVENT [EVENT...]\n"
		"Add each named PAPI preset or native event to one event set, run a small\n"
		"workload and print each event's count.\n\n"
		"  -u   print counts as unsigned integers\n"
		"  -x   print counts in hexadecimal\n"
		"  -h   this text\n",
		prog);
}

static void add_one(const char *prog, struct cmdline *c, const char *name)
{
	int code, rc = PAPI_event_name_to_code(name, &code);

	if (rc == PAPI_OK)
		rc = PAPI_add_event(c->set, code);
	if (rc != PAPI_OK) {
		util_error(prog, "cannot add event '%s': %s (skipped)", name, PAPI_strerror(rc));
		c->failed++;
		return;
	}
	printf("Added %s\n", name);
	c->names[c->n++] = name;
}

static void print_values(const struct cmdline *c, enum print_fmt fmt)
{
	for (int i = 0; i < c->n; i++) {
		if (fmt == FMT_HEX)
			printf("%s : 0x%llx\n", c->names[i], (unsigned long long)c->values[i]);
		else if (fmt == FMT_UNSIGNED)
			printf("%s : %llu\n", c->names[i], (unsigned long long)c->values[i]);
		else
			printf("%s : %lld\n", c->names[i], c->values[i]);
	}
}

static int measure(const char *prog, struct cmdline *c, enum print_fmt fmt)
{
	int rc = PAPI_start(c->set);
	double sink;

	if (rc != PAPI_OK)
		return util_error(prog, "PAPI_start: %s", PAPI_strerror(rc));
	sink = util_workload(CMDLINE_WORK_PAGES);
	rc = PAPI_stop(c->set, c->values);
	if (rc != PAPI_OK)
		return util_error(prog, "PAPI_stop: %s", PAPI_strerror(rc));
	util_rule(stdout, '-');
	printf("Counts over the workload (checksum %.3f):\n", sink);
	print_values(c, fmt);
	return 0;
}

static int run(const char *prog, int first, int argc, char **argv, enum print_fmt fmt)
{
	struct cmdline c = {PAPI_NULL, 0, 0, NULL, NULL};
	int rc, nev = argc - first;

	c.names = calloc((size_t)nev, sizeof(*c.names));
	c.values = calloc((size_t)nev, sizeof(*c.values));
	if (!c.names || !c.values) {
		rc = util_error(prog, "out of memory");
		goto out;
	}
	rc = PAPI_create_eventset(&c.set);
	if (rc != PAPI_OK) {
		rc = util_error(prog, "PAPI_create_eventset: %s", PAPI_strerror(rc));
		goto out;
	}
	for (int i = first; i < argc; i++)
		add_one(prog, &c, argv[i]);
	if (c.n == 0)
		rc = util_error(prog, "none of the events could be added");
	else
		rc = measure(prog, &c, fmt);
	if (rc == 0 && c.failed)
		rc = util_error(prog, "%d of %d events could not be counted", c.failed, nev);
	PAPI_cleanup_eventset(c.set);
	PAPI_destroy_eventset(&c.set);
out:
	free(c.names);
	free(c.values);
	return rc;
}

int main(int argc, char **argv)
{
	const char *prog = "papi_command_line";
	enum print_fmt fmt = FMT_SIGNED;
	int i = 1, rc;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (util_opt_is(argv[i], "-u", NULL)) {
			fmt = FMT_UNSIGNED;
		} else if (util_opt_is(argv[i], "-x", NULL)) {
			fmt = FMT_HEX;
		} else if (util_opt_is(argv[i], "-h", "--help")) {
			usage(stdout, prog);
			return 0;
		} else if (util_opt_is(argv[i], "--", NULL)) {
			i++;
			break;
		} else {
			return util_bad_option(prog, argv[i]);
		}
	}
	if (i >= argc) {
		usage(stderr, prog);
		return util_error(prog, "no events given");
	}
	util_init(prog);
	rc = run(prog, i, argc, argv, fmt);
	PAPI_shutdown();
	return rc;
}
