/*
 * util_common.c - helpers shared by the PAPI utilities.
 *
 * Only the public API (papi.h) is used here: the utilities must behave the
 * same on Tally as a user's program would.
 */
#include "util_common.h"
#include "tally.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void util_init(const char *prog)
{
	int rc = PAPI_library_init(PAPI_VER_CURRENT);

	if (rc != PAPI_VER_CURRENT) {
		if (rc > 0)
			fprintf(stderr, "%s: PAPI library version mismatch (got 0x%x, built for 0x%x)\n",
				prog, rc, PAPI_VER_CURRENT);
		else
			fprintf(stderr, "%s: PAPI_library_init failed: %s\n", prog, PAPI_strerror(rc));
		exit(1);
	}
}

int util_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int util_opt_is(const char *arg, const char *short_opt, const char *long_opt)
{
	if (short_opt && strcmp(arg, short_opt) == 0)
		return 1;
	return long_opt && strcmp(arg, long_opt) == 0;
}

const char *util_opt_value(const char *prog, int argc, char **argv, int *i,
			   const char *short_opt, const char *long_opt)
{
	const char *arg = argv[*i];
	size_t ln = long_opt ? strlen(long_opt) : 0;

	if (short_opt && strncmp(arg, short_opt, 2) == 0 && arg[2] != '\0')
		return arg + 2;
	if (long_opt && strncmp(arg, long_opt, ln) == 0 && arg[ln] == '=')
		return arg + ln + 1;
	if (*i + 1 < argc) {
		(*i)++;
		return argv[*i];
	}
	util_error(prog, "option %s needs a value", arg);
	return NULL;
}

long util_parse_count(const char *prog, const char *what, const char *s, long max)
{
	char *end = NULL;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end != '\0' || v <= 0 || v > max) {
		util_error(prog, "invalid %s '%s': expected an integer from 1 to %ld", what, s, max);
		return -1;
	}
	return v;
}

int util_bad_option(const char *prog, const char *arg)
{
	return util_error(prog, "unknown option '%s' (try %s -h)", arg, prog);
}

int util_event_code(const char *prog, const char *name, int *code)
{
	int rc = PAPI_event_name_to_code(name, code);

	if (rc != PAPI_OK)
		util_error(prog, "event '%s': %s", name, PAPI_strerror(rc));
	return rc;
}

int util_info_is_derived(const PAPI_event_info_t *info)
{
	if (info->derived[0] == '\0')
		return 0;
	/* A compound event takes its value from one term: not derived. */
	return strcmp(info->derived, "NOT_DERIVED") != 0 && strcmp(info->derived, "DERIVED_CMPD") != 0;
}

unsigned util_preset_terms(const PAPI_event_info_t *info)
{
	unsigned n = 0;

	if (info->count)
		return info->count < PAPI_MAX_INFO_TERMS ? info->count : PAPI_MAX_INFO_TERMS;
	while (n < PAPI_MAX_INFO_TERMS && info->name[n][0] != '\0')
		n++;
	return n;
}

static int count_cmp_natives(int cidx)
{
	int code = PAPI_NATIVE_MASK;
	int n = 0;

	if (PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, cidx) != PAPI_OK)
		return 0;
	do
		n++;
	while (PAPI_enum_cmp_event(&code, PAPI_ENUM_EVENTS, cidx) == PAPI_OK);
	return n;
}

int util_count_natives(int cidx)
{
	int n = 0, ncmp = PAPI_num_components();

	if (cidx >= 0)
		return count_cmp_natives(cidx);
	for (int c = 0; c < ncmp; c++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(c);

		if (ci && !ci->disabled)
			n += count_cmp_natives(c);
	}
	return n;
}

void util_rule(FILE *f, char c)
{
	for (int i = 0; i < UTIL_RULE_WIDTH; i++)
		fputc(c, f);
	fputc('\n', f);
}

void util_print_version(FILE *f)
{
	PAPI_option_t opt;
	int v = PAPI_get_opt(PAPI_LIB_VERSION, &opt);

	if (v < 0)
		v = PAPI_VERSION;
	fprintf(f, "%-28s: %d.%d.%d.%d\n", "PAPI version", PAPI_VERSION_MAJOR(v),
		PAPI_VERSION_MINOR(v), PAPI_VERSION_REVISION(v), PAPI_VERSION_INCREMENT(v));
}

static void print_counters(FILE *f)
{
	int ncmp = PAPI_num_components(), mpx = 0, fast = 0;

	for (int c = 0; c < ncmp; c++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(c);

		if (!ci || ci->disabled)
			continue;
		mpx += ci->num_mpx_cntrs;
		fast |= ci->fast_counter_read;
	}
	fprintf(f, "%-28s: %d\n", "Number of hardware counters", PAPI_num_hwctrs());
	fprintf(f, "%-28s: %d\n", "Max multiplex counters", mpx);
	fprintf(f, "%-28s: %s\n", "Fast counter read (rdpmc)", fast ? "yes" : "no");
}

void util_print_hw_summary(FILE *f)
{
	const PAPI_hw_info_t *hw = PAPI_get_hardware_info();

	if (!hw) {
		fprintf(f, "Hardware information unavailable.\n");
		return;
	}
	fprintf(f, "%-28s: %s (%d)\n", "Vendor string and code", hw->vendor_string, hw->vendor);
	fprintf(f, "%-28s: %s (%d)\n", "Model string and code", hw->model_string, hw->model);
	fprintf(f, "%-28s: %f\n", "CPU revision", (double)hw->revision);
	fprintf(f, "%-28s: family %d, model %d, stepping %d\n", "CPUID", hw->cpuid_family,
		hw->cpuid_model, hw->cpuid_stepping);
	fprintf(f, "%-28s: %d / %d (%s)\n", "CPU max / min MHz", hw->cpu_max_mhz, hw->cpu_min_mhz,
		tally_hw_mhz_source() ? tally_hw_mhz_source() : "unknown");
	fprintf(f, "%-28s: %d\n", "Total cores", hw->totalcpus);
	fprintf(f, "%-28s: %d\n", "SMT threads per core", hw->threads);
	fprintf(f, "%-28s: %d\n", "Cores per socket", hw->cores);
	fprintf(f, "%-28s: %d\n", "Sockets", hw->sockets);
	fprintf(f, "%-28s: %d\n", "NUMA nodes", hw->nnodes);
	fprintf(f, "%-28s: %d\n", "CPUs per node", hw->ncpu);
	if (hw->virtualized)
		fprintf(f, "%-28s: yes (%s%s%s)\n", "Running in a VM", hw->virtual_vendor_string,
			hw->virtual_vendor_version[0] ? " " : "", hw->virtual_vendor_version);
	else
		fprintf(f, "%-28s: no\n", "Running in a VM");
	print_counters(f);
}

int util_print_hw_notes(FILE *f, const char *indent)
{
	int ncmp = PAPI_num_components(), lines = 0;

	for (int c = 0; c < ncmp; c++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(c);

		if (!ci || ci->disabled || ci->disabled_reason[0] == '\0')
			continue;
		fprintf(f, "%s%s: %s\n", indent, ci->name, ci->disabled_reason);
		lines++;
	}
	return lines;
}

double util_workload(int npages)
{
	size_t len = (size_t)npages * 4096;
	volatile double acc = 0.0;
	unsigned char *buf = malloc(len);

	if (buf) {
		/* One write per page: each fresh page costs a page fault. */
		for (size_t off = 0; off < len; off += 4096)
			buf[off] = (unsigned char)off;
		for (size_t off = 0; off < len; off += 4096)
			acc += buf[off];
		free(buf);
	}
	for (int i = 1; i <= 2000000; i++)
		acc += 1.0 / (double)i;
	return acc;
}

void util_stats_of(const long long *v, long n, struct util_stats *s)
{
	double sum = 0.0, sq = 0.0;

	memset(s, 0, sizeof(*s));
	s->n = n;
	if (n <= 0)
		return;
	s->min = s->max = v[0];
	for (long i = 0; i < n; i++) {
		if (v[i] < s->min)
			s->min = v[i];
		if (v[i] > s->max)
			s->max = v[i];
		sum += (double)v[i];
	}
	s->mean = sum / (double)n;
	for (long i = 0; i < n; i++)
		sq += ((double)v[i] - s->mean) * ((double)v[i] - s->mean);
	s->sd = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
}
