/*
 * papi7_program.c - an ordinary program written against PAPI 7, compiled
 * unchanged (plain <papi.h>, -lpapi) by the api_papi7_program test.
 * Prints "TASK-CLOCK=<count>" and exits 0 when everything worked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <papi.h>

#define CHECK(call) do { int rc_ = (call); if (rc_ != PAPI_OK) { \
	fprintf(stderr, "%s failed: %s\n", #call, PAPI_strerror(rc_)); return 1; } } while (0)

static double work(int n)
{
	double x = 0.0;
	for (int i = 1; i <= n; i++)
		x += 1.0 / ((double)i * i);
	return x;
}

int main(void)
{
	int retval, EventSet = PAPI_NULL, code = 0, cidx, i;
	long long values[1] = { 0 }, cyc0 = 0, cyc1 = 0;
	char name[PAPI_MAX_STR_LEN];

	retval = PAPI_library_init(PAPI_VER_CURRENT);
	if (retval != PAPI_VER_CURRENT) {
		fprintf(stderr, "PAPI_library_init failed: %d\n", retval);
		return 1;
	}
	for (i = 0; i < PAPI_num_components(); i++) {
		const PAPI_component_info_t *cmpinfo = PAPI_get_component_info(i);
		if (cmpinfo == NULL) {
			fprintf(stderr, "no info for component %d\n", i);
			return 1;
		}
		printf("component %d: %s%s\n", i, cmpinfo->name,
		       cmpinfo->disabled ? " (disabled)" : "");
	}
	CHECK(PAPI_create_eventset(&EventSet));
	CHECK(PAPI_add_named_event(EventSet, "perf::TASK-CLOCK"));
	CHECK(PAPI_event_name_to_code("perf::TASK-CLOCK", &code));
	cidx = PAPI_get_event_component(code);
	if (cidx < 0) {
		fprintf(stderr, "PAPI_get_event_component: %s\n", PAPI_strerror(cidx));
		return 1;
	}
	CHECK(PAPI_event_code_to_name(code, name));
	printf("event %s (0x%x) in component %d\n", name, (unsigned)code, cidx);

	retval = PAPI_add_named_event(EventSet, "perf::NO_SUCH_EVENT");
	if (retval == PAPI_OK) {
		fprintf(stderr, "a bogus event was accepted\n");
		return 1;
	}
	printf("expected failure: %s\n", PAPI_strerror(retval));

	CHECK(PAPI_start(EventSet));
	CHECK(PAPI_read_ts(EventSet, values, &cyc0));
	printf("work: %f\n", work(20000000));
	CHECK(PAPI_read_ts(EventSet, values, &cyc1));
	CHECK(PAPI_stop(EventSet, values));
	if (cyc1 <= cyc0) {
		fprintf(stderr, "PAPI_read_ts cycles did not advance\n");
		return 1;
	}
	printf("TASK-CLOCK=%lld\n", values[0]);
	CHECK(PAPI_cleanup_eventset(EventSet));
	CHECK(PAPI_destroy_eventset(&EventSet));
	PAPI_shutdown();
	return values[0] > 0 ? 0 : 1;
}
