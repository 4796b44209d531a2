/*
 * papi7_user.c - a program written for PAPI 7, nothing Tally-specific:
 * compiled by test_install.sh against the *installed* headers and linked
 * with -lpapi.  Prints "counted <event> <value>" for a software event.
 */
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, int rc)
{
	fprintf(stderr, "%s: %s\n", what, PAPI_strerror(rc));
	exit(1);
}

int main(void)
{
	int es = PAPI_NULL, rc, code;
	long long v[1], cyc;
	char name[PAPI_MAX_STR_LEN];
	volatile double x = 0;

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
		die("PAPI_library_init", PAPI_EINVAL);
	for (int i = 0; i < PAPI_num_components(); i++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(i);

		printf("component %d: %s%s\n", i, ci->name, ci->disabled ? " (disabled)" : "");
	}
	if ((rc = PAPI_create_eventset(&es)) != PAPI_OK)
		die("PAPI_create_eventset", rc);
	if ((rc = PAPI_add_named_event(es, "perf::TASK-CLOCK")) != PAPI_OK)
		die("PAPI_add_named_event", rc);
	if ((rc = PAPI_event_name_to_code("perf::TASK-CLOCK", &code)) != PAPI_OK)
		die("PAPI_event_name_to_code", rc);
	if (PAPI_get_event_component(code) < 0)
		die("PAPI_get_event_component", PAPI_get_event_component(code));
	if ((rc = PAPI_event_code_to_name(code, name)) != PAPI_OK)
		die("PAPI_event_code_to_name", rc);
	if ((rc = PAPI_start(es)) != PAPI_OK)
		die("PAPI_start", rc);
	for (int i = 0; i < 10000000; i++)
		x += i * 0.5;
	if ((rc = PAPI_read_ts(es, v, &cyc)) != PAPI_OK)
		die("PAPI_read_ts", rc);
	if ((rc = PAPI_stop(es, v)) != PAPI_OK)
		die("PAPI_stop", rc);
	printf("counted %s %lld\n", name, v[0]);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	PAPI_shutdown();
	return v[0] > 0 ? 0 : 1;
}
