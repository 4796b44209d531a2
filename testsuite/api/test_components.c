/*
 * test_components.c - the PAPI 7 component calls: PAPI_num_components,
 * PAPI_get_component_info, PAPI_get_component_index,
 * PAPI_get_event_component, PAPI_get_eventset_component,
 * PAPI_assign_eventset_component, the 3.5 PAPI_get_substrate_info and
 * Tally's tally_component_name.
 */
#include "api_util.h"

#include <string.h>

#include "tally.h"

static void test_component_table(void)
{
	int n = PAPI_num_components();

	TH_CHECK(n >= 1);
	for (int i = 0; i < n; i++) {
		const PAPI_component_info_t *ci = PAPI_get_component_info(i);
		th_at(__LINE__);
		TH_CHECK(ci != NULL);
		if (!ci)
			continue;
		TH_EQ(ci->CmpIdx, i);
		TH_CHECK(ci->name[0] != '\0');
		TH_EQ(PAPI_get_component_index(ci->name), i);
		/* the runtime names components this way: same name, no info */
		const char *nm = tally_component_name(i);
		TH_CHECK(nm != NULL && strcmp(nm, ci->name) == 0);
		/* a disabled component says why */
		if (ci->disabled)
			TH_CHECK(ci->disabled_reason[0] != '\0');
	}
	th_at(0);
	TH_CHECK(PAPI_get_component_info(n) == NULL);
	TH_CHECK(PAPI_get_component_info(-1) == NULL);
	TH_CHECK(tally_component_name(n) == NULL);
	TH_CHECK(tally_component_name(-1) == NULL);
	TH_EQ(PAPI_get_component_index("no_such_component"), PAPI_ENOCMP);
	int rc = PAPI_get_component_index(NULL);
	TH_CHECK(rc == PAPI_EINVAL || rc == PAPI_ENOCMP);
}

static void test_perf_event_component(void)
{
	const PAPI_component_info_t *ci = PAPI_get_component_info(0);

	TH_EQ(PAPI_get_component_index("perf_event"), 0);
	TH_CHECK(ci != NULL);
	if (!ci)
		return;
	TH_CHECK(strcmp(ci->name, "perf_event") == 0);
	TH_EQ(ci->disabled, 0); /* active: software events count */
	TH_CHECK(ci->num_native_events > 0);
	TH_CHECK(ci->available_domains & PAPI_DOM_USER);
	TH_CHECK(ci->default_domain & ci->available_domains);
	TH_CHECK(ci->available_granularities & PAPI_GRN_THR);
	TH_CHECK(ci->default_granularity & ci->available_granularities);
	/* 3.5 name for the first component's info */
	TH_CHECK(PAPI_get_substrate_info() == ci);
}

static void test_event_and_set_component(void)
{
	int tc = 0, es = PAPI_NULL;

	TH_EQ(PAPI_event_name_to_code(API_TASK_CLOCK, &tc), PAPI_OK);
	TH_EQ(PAPI_get_event_component(tc), 0);
	/* component-qualified names (PAPI 7 "perf_event:::") name the same event */
	int q = 0;
	if (PAPI_event_name_to_code("perf_event:::perf::TASK-CLOCK", &q) == PAPI_OK)
		TH_EQ(PAPI_get_event_component(q), 0);
	TH_CHECK(PAPI_get_event_component(PAPI_NATIVE_MASK | 0xFFFFFF) < 0);

	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_assign_eventset_component(es, 0), PAPI_OK);
	TH_EQ(PAPI_get_eventset_component(es), 0);
	TH_EQ(PAPI_assign_eventset_component(es, PAPI_num_components()), PAPI_ENOCMP);
	TH_EQ(PAPI_get_eventset_component(es), 0);
	TH_EQ(PAPI_add_event(es, tc), PAPI_OK);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_get_eventset_component(987654), PAPI_ENOEVST);
	TH_EQ(PAPI_assign_eventset_component(987654, 0), PAPI_ENOEVST);
}

int main(void)
{
	/* before PAPI_library_init: no name, no crash */
	TH_CHECK(tally_component_name(0) == NULL);
	api_init();
	test_component_table();
	test_perf_event_component();
	test_event_and_set_component();
	PAPI_shutdown();
	return th_done();
}
