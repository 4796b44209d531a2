/*
 * test_eventset.c - event set life cycle and its state machine:
 * PAPI_create_eventset, PAPI_add_event(s), PAPI_add_named_event,
 * PAPI_remove_event(s), PAPI_remove_named_event, PAPI_list_events,
 * PAPI_num_events, PAPI_state, PAPI_cleanup_eventset,
 * PAPI_destroy_eventset, PAPI_start/stop on the wrong state
 * (PAPI_EISRUN, PAPI_ENOTRUN, PAPI_ENOEVST, PAPI_ECNFLCT).
 */
#include "api_util.h"

#define NPAGES 2000

static int tc, pf; /* native codes of TASK-CLOCK and PAGE-FAULTS */

static void test_create(void)
{
	int es = 42;

	TH_EQ(PAPI_create_eventset(NULL), PAPI_EINVAL);
	/* the handle must be initialised to PAPI_NULL */
	TH_EQ(PAPI_create_eventset(&es), PAPI_EINVAL);
	es = PAPI_NULL;
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_CHECK(es != PAPI_NULL && es >= 0);
	int st = 0;
	TH_EQ(PAPI_state(es, &st), PAPI_OK);
	TH_EQ(st, PAPI_STOPPED);
	TH_EQ(PAPI_num_events(es), 0);
	/* a second set gets a different handle */
	int es2 = PAPI_NULL;
	TH_EQ(PAPI_create_eventset(&es2), PAPI_OK);
	TH_CHECK(es2 != es);
	TH_EQ(PAPI_destroy_eventset(&es2), PAPI_OK);
	TH_EQ(es2, PAPI_NULL);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
}

static void test_add_list_remove(void)
{
	int es = PAPI_NULL, list[4], n;

	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_event(es, tc), PAPI_OK);
	TH_EQ(PAPI_num_events(es), 1);
	/* the same event twice conflicts */
	TH_EQ(PAPI_add_event(es, tc), PAPI_ECNFLCT);
	TH_EQ(PAPI_add_named_event(es, API_TASK_CLOCK), PAPI_ECNFLCT);
	TH_EQ(PAPI_num_events(es), 1);
	TH_EQ(PAPI_add_named_event(es, API_PAGE_FAULTS), PAPI_OK);
	TH_EQ(PAPI_num_events(es), 2);

	n = 4;
	TH_EQ(PAPI_list_events(es, list, &n), PAPI_OK);
	TH_EQ(n, 2);
	TH_EQ(list[0], tc);
	TH_EQ(list[1], pf);
	/* a short array gets the first events; *number still says how many
	 * the set holds (3.5 reference: it may exceed what was stored) */
	n = 1;
	list[0] = list[1] = 0;
	TH_EQ(PAPI_list_events(es, list, &n), PAPI_OK);
	TH_EQ(n, 2);
	TH_EQ(list[0], tc);
	TH_EQ(list[1], 0);
	TH_EQ(PAPI_list_events(es, list, NULL), PAPI_EINVAL);
	n = -1;
	TH_EQ(PAPI_list_events(es, list, &n), PAPI_EINVAL);
	n = 4;
	TH_EQ(PAPI_list_events(es, NULL, &n), PAPI_EINVAL);
	TH_EQ(PAPI_list_events(es + 1000, list, &n), PAPI_ENOEVST);

	/* remove the first: the second keeps counting in position 0 */
	TH_EQ(PAPI_remove_event(es, tc), PAPI_OK);
	TH_EQ(PAPI_num_events(es), 1);
	int rc = PAPI_remove_event(es, tc);
	TH_CHECK(rc == PAPI_EINVAL || rc == PAPI_ENOEVNT); /* not in the set */
	n = 4;
	TH_EQ(PAPI_list_events(es, list, &n), PAPI_OK);
	TH_EQ(n, 1);
	TH_EQ(list[0], pf);
	long long v[2] = { -1, -1 };
	TH_EQ(PAPI_start(es), PAPI_OK);
	touch_fresh_pages(NPAGES);
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	TH_NEAR(v[0], NPAGES, 0.02);
	TH_EQ(v[1], -1); /* only num_events values are written */

	TH_EQ(PAPI_remove_named_event(es, API_PAGE_FAULTS), PAPI_OK);
	TH_EQ(PAPI_num_events(es), 0);
	TH_EQ(PAPI_remove_named_event(es, NULL), PAPI_EINVAL);
	rc = PAPI_remove_named_event(es, "perf::NO-SUCH-EVENT");
	TH_EQ(rc, PAPI_ENOEVNT);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
}

static void test_add_remove_events_arrays(void)
{
	int es = PAPI_NULL;
	int good[2] = { tc, pf };
	int bad_second[2] = { tc, PAPI_NATIVE_MASK | 0xFFFFF };
	int bad_first[2] = { PAPI_NATIVE_MASK | 0xFFFFF, tc };

	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_events(es, NULL, 2), PAPI_EINVAL);
	TH_EQ(PAPI_add_events(es, good, 0), PAPI_EINVAL);
	TH_EQ(PAPI_add_events(es, good, -1), PAPI_EINVAL);
	TH_EQ(PAPI_add_events(es, good, 2), PAPI_OK);
	TH_EQ(PAPI_num_events(es), 2);
	TH_EQ(PAPI_remove_events(es, NULL, 2), PAPI_EINVAL);
	TH_EQ(PAPI_remove_events(es, good, 0), PAPI_EINVAL);
	TH_EQ(PAPI_remove_events(es, good, 2), PAPI_OK);
	TH_EQ(PAPI_num_events(es), 0);
	/* a failure after k successes returns k (the successes stay) */
	TH_EQ(PAPI_add_events(es, bad_second, 2), 1);
	TH_EQ(PAPI_num_events(es), 1);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	/* a failure on the first element returns its error */
	TH_EQ(PAPI_add_events(es, bad_first, 2), PAPI_ENOEVNT);
	TH_EQ(PAPI_num_events(es), 0);
	TH_EQ(PAPI_add_events(es + 1000, good, 2), PAPI_ENOEVST);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
}

/* Everything that must refuse a running set with PAPI_EISRUN. */
static void test_running_set_refuses(void)
{
	int es = PAPI_NULL, other = PAPI_NULL, st = 0, rc;
	long long v[2];

	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_event(es, tc), PAPI_OK);
	TH_EQ(PAPI_start(es), PAPI_OK);
	TH_EQ(PAPI_state(es, &st), PAPI_OK);
	TH_CHECK(st & PAPI_RUNNING);
	TH_CHECK(!(st & PAPI_STOPPED));

	struct { int line; int rc; } rows[] = {
		{ __LINE__, PAPI_start(es) },
		{ __LINE__, PAPI_add_event(es, pf) },
		{ __LINE__, PAPI_add_named_event(es, API_PAGE_FAULTS) },
		{ __LINE__, PAPI_remove_event(es, tc) },
		{ __LINE__, PAPI_remove_named_event(es, API_TASK_CLOCK) },
		{ __LINE__, PAPI_cleanup_eventset(es) },
		{ __LINE__, PAPI_destroy_eventset(&es) },
		{ __LINE__, PAPI_set_multiplex(es) },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(rows[i].rc, PAPI_EISRUN);
	}
	th_at(0);
	TH_CHECK(es != PAPI_NULL); /* destroy refused: the handle is kept */
	TH_EQ(PAPI_num_events(es), 1);

	/* a second set in the same thread cannot run beside the first */
	TH_EQ(PAPI_create_eventset(&other), PAPI_OK);
	TH_EQ(PAPI_add_event(other, pf), PAPI_OK);
	rc = PAPI_start(other);
	TH_CHECK(rc == PAPI_EISRUN || rc == PAPI_ECNFLCT);
	if (rc == PAPI_OK)
		PAPI_stop(other, v);
	TH_EQ(PAPI_state(other, &st), PAPI_OK);
	TH_EQ(st, PAPI_STOPPED);

	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	TH_EQ(PAPI_state(es, &st), PAPI_OK);
	TH_EQ(st, PAPI_STOPPED);
	/* stopped: now the other set may start */
	TH_EQ(PAPI_start(other), PAPI_OK);
	TH_EQ(PAPI_stop(other, v), PAPI_OK);
	TH_EQ(PAPI_stop(other, v), PAPI_ENOTRUN);
	TH_EQ(PAPI_stop(es, v), PAPI_ENOTRUN);
	TH_EQ(PAPI_cleanup_eventset(other), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&other), PAPI_OK);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
}

static void test_empty_and_nonempty(void)
{
	int es = PAPI_NULL;
	long long v[1];

	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	/* nothing to count */
	TH_EQ(PAPI_start(es), PAPI_EINVAL);
	TH_EQ(PAPI_stop(es, v), PAPI_ENOTRUN);
	TH_EQ(PAPI_add_event(es, tc), PAPI_OK);
	/* destroying a set that still holds events is refused */
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_EINVAL);
	TH_CHECK(es != PAPI_NULL);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_num_events(es), 0);
	int st = 0;
	TH_EQ(PAPI_state(es, &st), PAPI_OK);
	TH_EQ(st, PAPI_STOPPED);
	/* a cleaned-up set is reusable */
	TH_EQ(PAPI_add_event(es, pf), PAPI_OK);
	TH_EQ(PAPI_start(es), PAPI_OK);
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(NULL), PAPI_EINVAL);
}

/* Every set-taking function on a destroyed and on a never-created id. */
static void test_no_such_set(void)
{
	int es = PAPI_NULL, dead, list[2], n = 2, st;
	long long v[2], cyc;
	PAPI_option_t opt;

	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	dead = es;
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	int ids[] = { dead, 987654, -5 };
	for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
		int id = ids[k], tmp = id;
		memset(&opt, 0, sizeof opt);
		opt.domain.eventset = id;
		opt.domain.domain = PAPI_DOM_USER;
		struct { int line; int rc; } rows[] = {
			{ __LINE__, PAPI_add_event(id, tc) },
			{ __LINE__, PAPI_add_named_event(id, API_TASK_CLOCK) },
			{ __LINE__, PAPI_remove_event(id, tc) },
			{ __LINE__, PAPI_remove_named_event(id, API_TASK_CLOCK) },
			{ __LINE__, PAPI_start(id) },
			{ __LINE__, PAPI_stop(id, v) },
			{ __LINE__, PAPI_read(id, v) },
			{ __LINE__, PAPI_read_ts(id, v, &cyc) },
			{ __LINE__, PAPI_accum(id, v) },
			{ __LINE__, PAPI_reset(id) },
			{ __LINE__, PAPI_write(id, v) },
			{ __LINE__, PAPI_state(id, &st) },
			{ __LINE__, PAPI_num_events(id) },
			{ __LINE__, PAPI_list_events(id, list, &n) },
			{ __LINE__, PAPI_cleanup_eventset(id) },
			{ __LINE__, PAPI_destroy_eventset(&tmp) },
			{ __LINE__, PAPI_get_multiplex(id) },
			{ __LINE__, PAPI_set_multiplex(id) },
			{ __LINE__, PAPI_attach(id, (unsigned long)getpid()) },
			{ __LINE__, PAPI_detach(id) },
			{ __LINE__, PAPI_assign_eventset_component(id, 0) },
			{ __LINE__, PAPI_get_eventset_component(id) },
			{ __LINE__, PAPI_get_opt(PAPI_DOMAIN, &opt) },
			{ __LINE__, PAPI_set_opt(PAPI_DOMAIN, &opt) },
		};
		for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
			th_at(rows[i].line);
			TH_EQ(rows[i].rc, PAPI_ENOEVST);
		}
		th_at(0);
	}
}

static void test_eventset_component(void)
{
	int es = PAPI_NULL;

	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	/* not bound to a component yet */
	TH_CHECK(PAPI_get_eventset_component(es) < 0);
	TH_EQ(PAPI_assign_eventset_component(es, PAPI_num_components()), PAPI_ENOCMP);
	TH_EQ(PAPI_assign_eventset_component(es, -1), PAPI_ENOCMP);
	TH_EQ(PAPI_assign_eventset_component(es, 0), PAPI_OK);
	TH_EQ(PAPI_get_eventset_component(es), 0);
	TH_EQ(PAPI_add_event(es, tc), PAPI_OK);
	TH_EQ(PAPI_get_eventset_component(es), 0);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);

	/* adding an event binds the set to the event's component */
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_event(es, pf), PAPI_OK);
	TH_EQ(PAPI_get_eventset_component(es), PAPI_get_event_component(pf));
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
}

static void test_unavailable_events(void)
{
	int es = PAPI_NULL;

	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	/* this machine has no hardware counters: presets do not exist here */
	TH_EQ(PAPI_add_event(es, PAPI_TOT_CYC), PAPI_ENOEVNT);
	TH_EQ(PAPI_add_event(es, PAPI_TOT_INS), PAPI_ENOEVNT);
	TH_EQ(PAPI_add_named_event(es, "PAPI_TOT_CYC"), PAPI_ENOEVNT);
	TH_EQ(PAPI_add_event(es, PAPI_PRESET_MASK | 200), PAPI_ENOTPRESET);
	TH_EQ(PAPI_add_event(es, 0), PAPI_ENOEVNT);
	TH_EQ(PAPI_add_named_event(es, NULL), PAPI_EINVAL);
	TH_EQ(PAPI_add_named_event(es, "perf::NO-SUCH-EVENT"), PAPI_ENOEVNT);
	TH_EQ(PAPI_num_events(es), 0);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
}

int main(void)
{
	api_init();
	TH_EQ(PAPI_event_name_to_code(API_TASK_CLOCK, &tc), PAPI_OK);
	TH_EQ(PAPI_event_name_to_code(API_PAGE_FAULTS, &pf), PAPI_OK);
	TH_CHECK(IS_NATIVE(tc) && IS_NATIVE(pf) && tc != pf);
	test_create();
	test_add_list_remove();
	test_add_remove_events_arrays();
	test_running_set_refuses();
	test_empty_and_nonempty();
	test_no_such_set();
	test_eventset_component();
	test_unavailable_events();
	PAPI_shutdown();
	return th_done();
}
