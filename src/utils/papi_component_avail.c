/*
 * papi_component_avail - list the compiled-in components, which are active,
 * why the others are disabled, and how many events each offers.
 *
 *   papi_component_avail [-d] [-h]
 */
#include "util_common.h"

#include <string.h>

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [options]\n"
		"List the components compiled into the PAPI library and their state.\n\n"
		"  -d, --detail   also show versions, counters, domains, granularities and flags\n"
		"  -h, --help     this text\n",
		prog);
}

/* Presets that are available and whose first native term lives in cidx. */
static int count_presets(int cidx)
{
	int code = PAPI_PRESET_MASK, n = 0;
	PAPI_event_info_t info;

	if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK)
		return 0;
	do {
		if (PAPI_query_event(code) != PAPI_OK)
			continue;
		memset(&info, 0, sizeof(info));
		if (PAPI_get_event_info(code, &info) != PAPI_OK || info.count == 0)
			continue;
		if (PAPI_get_event_component((int)info.code[0]) == cidx)
			n++;
	} while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
	return n;
}

static void print_flags(const PAPI_component_info_t *ci)
{
	printf("        Flags:");
	if (ci->hardware_intr)
		printf(" hardware-interrupt");
	if (ci->precise_intr)
		printf(" precise-interrupt");
	if (ci->kernel_multiplex)
		printf(" kernel-multiplex");
	if (ci->fast_counter_read)
		printf(" fast-counter-read");
	if (ci->attach)
		printf(" attach");
	if (ci->cpu)
		printf(" cpu-attach");
	if (ci->inherit)
		printf(" inherit");
	if (ci->cntr_umasks)
		printf(" umasks");
	printf("\n");
}

static void print_detail(const PAPI_component_info_t *ci)
{
	printf("        Version: %s (support %s, kernel %s)\n", ci->version,
	       ci->support_version[0] ? ci->support_version : "-",
	       ci->kernel_version[0] ? ci->kernel_version : "-");
	printf("        Multiplex counters: %d\n", ci->num_mpx_cntrs);
	printf("        Domains: default 0x%x, available 0x%x\n", ci->default_domain,
	       ci->available_domains);
	printf("        Granularities: default 0x%x, available 0x%x\n", ci->default_granularity,
	       ci->available_granularities);
	print_flags(ci);
}

static void print_pmus(const PAPI_component_info_t *ci)
{
	int any = 0;

	for (int i = 0; i < PAPI_PMU_MAX && ci->pmu_names[i]; i++) {
		printf("%s%s", any ? ", " : "        PMUs supported: ", ci->pmu_names[i]);
		any = 1;
	}
	if (any)
		printf("\n");
}

static void print_active(int cidx, const PAPI_component_info_t *ci, int detail)
{
	int natives = util_count_natives(cidx);
	int presets = ci->num_preset_events > 0 ? ci->num_preset_events : count_presets(cidx);

	printf("Name:   %-20s %s\n", ci->name, ci->description);
	printf("        Native: %d, Preset: %d, Counters: %d\n", natives, presets, ci->num_cntrs);
	print_pmus(ci);
	if (ci->disabled_reason[0])
		printf("        Note: %s\n", ci->disabled_reason);
	if (detail)
		print_detail(ci);
	printf("\n");
}

static int list_components(int active, int detail)
{
	int n = 0;

	for (int c = 0; c < PAPI_num_components(); c++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(c);

		if (!ci || (ci->disabled == PAPI_OK) != active)
			continue;
		n++;
		if (active) {
			print_active(c, ci, detail);
			continue;
		}
		printf("Name:   %-20s %s\n", ci->name, ci->description);
		printf("        Disabled: %s\n\n",
		       ci->disabled_reason[0] ? ci->disabled_reason : PAPI_strerror(ci->disabled));
	}
	return n;
}

int main(int argc, char **argv)
{
	const char *prog = "papi_component_avail";
	int detail = 0, nactive;

	for (int i = 1; i < argc; i++) {
		if (util_opt_is(argv[i], "-d", "--detail")) {
			detail = 1;
		} else if (util_opt_is(argv[i], "-h", "--help")) {
			usage(stdout, prog);
			return 0;
		} else {
			return util_bad_option(prog, argv[i]);
		}
	}
	util_init(prog);
	printf("Available components and hardware information.\n");
	util_rule(stdout, '-');
	util_print_version(stdout);
	util_print_hw_summary(stdout);
	util_rule(stdout, '-');
	printf("Compiled-in components: %d\n\n", PAPI_num_components());
	printf("Active components:\n");
	nactive = list_components(1, detail);
	if (nactive == 0)
		printf("        (none)\n\n");
	printf("Disabled components:\n");
	if (list_components(0, detail) == 0)
		printf("        (none)\n");
	util_rule(stdout, '-');
	PAPI_shutdown();
	return nactive > 0 ? 0 : util_error(prog, "no component is active");
}
