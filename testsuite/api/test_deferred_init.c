/*
 * test_deferred_init.c - the GPU components (cuda, nvml) initialise at
 * their first use, not in PAPI_library_init: a program that counts CPU
 * events only never loads their libraries.  What is observed is the real
 * dlopen: the libraries named by TALLY_NVML_LIB and TALLY_CUPTI_LIB
 * (ordinary system libraries here, so the dlopen succeeds and the symbol
 * lookup then disables the component) appear in /proc/self/maps only
 * once the component is used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_util.h"

#define NVML_STANDIN "libz.so.1"
#define CUPTI_STANDIN "liblzma.so.5"

/* 1 when a library whose file name starts with `lib` is mapped. */
static int mapped(const char *lib)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof line, f)) {
		const char *slash = strrchr(line, '/');

		found = slash && strncmp(slash + 1, lib, strlen(lib)) == 0;
	}
	fclose(f);
	return found;
}

static void count_cpu_only(void)
{
	int es = PAPI_NULL, code = 0;
	long long v = 0;

	TH_EQ(PAPI_event_name_to_code(API_TASK_CLOCK, &code), PAPI_OK);
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_event(es, code), PAPI_OK);
	TH_EQ(PAPI_start(es), PAPI_OK);
	th_spin_cpu_ns(20000000);
	TH_EQ(PAPI_stop(es, &v), PAPI_OK);
	TH_CHECK(v >= 15000000);   /* 20 ms of this thread's CPU time, counted */
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	/* a preset resolves against the CPU's counters, whatever its answer */
	(void)PAPI_query_event(PAPI_TOT_INS);
}

int main(void)
{
	const PAPI_component_info_t *ci;
	int nvml, cuda, code = 0;

	setenv("TALLY_NVML_LIB", NVML_STANDIN, 1);
	setenv("TALLY_CUPTI_LIB", CUPTI_STANDIN, 1);
	TH_EQ(mapped(NVML_STANDIN), 0);
	TH_EQ(mapped(CUPTI_STANDIN), 0);
	api_init();
	nvml = PAPI_get_component_index("nvml");
	cuda = PAPI_get_component_index("cuda");
	TH_CHECK(nvml >= 0);

	/* Initialisation and CPU counting leave both alone. */
	count_cpu_only();
	TH_EQ(mapped(NVML_STANDIN), 0);
	TH_EQ(mapped(CUPTI_STANDIN), 0);

	/* The component's info is a use: its init runs, and says why it
	 * cannot work with a library that is not NVML. */
	ci = PAPI_get_component_info(nvml);
	TH_CHECK(ci != NULL);
	TH_EQ(mapped(NVML_STANDIN), 1);
	if (ci) {
		TH_CHECK(ci->disabled != 0);
		TH_CHECK(strstr(ci->disabled_reason, NVML_STANDIN) != NULL);
		printf("nvml after first use: disabled %d: %s\n", ci->disabled, ci->disabled_reason);
	}

	/* One of its events is a use (cuda is built wherever the CUDA
	 * toolkit was found, as in CI). */
	if (cuda >= 0) {
		TH_EQ(mapped(CUPTI_STANDIN), 0);
		TH_CHECK(PAPI_event_name_to_code("cuda:::smsp__inst_executed.sum", &code) != PAPI_OK);
		TH_EQ(mapped(CUPTI_STANDIN), 1);
		ci = PAPI_get_component_info(cuda);
		TH_CHECK(ci && ci->disabled != 0 && ci->disabled_reason[0] != '\0');
	} else {
		printf("cuda component not built here: only nvml checked\n");
	}

	/* After a shutdown and a new init the components are used anew. */
	PAPI_shutdown();
	api_init();
	count_cpu_only();
	ci = PAPI_get_component_info(nvml);
	TH_CHECK(ci && ci->disabled != 0 && strstr(ci->disabled_reason, NVML_STANDIN) != NULL);
	/* an unknown name without prefix is looked for everywhere */
	TH_EQ(PAPI_event_name_to_code("NO_SUCH_EVENT_IN_ANY_COMPONENT", &code), PAPI_ENOEVNT);
	PAPI_shutdown();
	return th_done();
}
