/*
 * test_init.c - library life cycle, each scenario in a fresh process:
 * PAPI_is_initialized, PAPI_library_init (wrong versions, repeated init),
 * every call before PAPI_library_init -> PAPI_ENOINIT (or NULL),
 * PAPI_shutdown (while a set runs, twice, calls afterwards, re-init),
 * PAPI_disable_component / PAPI_disable_component_by_name (only before
 * init; PAPI_ENOCMP for unknown components, PAPI_ENOINIT after init).
 */
#include "api_util.h"
#include "fork_util.h"
#include <pthread.h>

#define NPAGES 2000

static unsigned long pthread_self_id(void)
{
	return (unsigned long)pthread_self();
}

static void dummy_handler(int es, void *addr, long long ov, void *ctx)
{
	(void)es; (void)addr; (void)ov; (void)ctx;
}

/* Calls that need the library; `es` is any set id. */
static void expect_enoinit(int es)
{
	int code = 0, n = 2, list[2], st, tmp = es, cnt = 2, arr[2];
	long long v[2], cyc;
	char name[PAPI_HUGE_STR_LEN];
	PAPI_event_info_t info;
	PAPI_option_t o;
	PAPI_thread_id_t tids[4];
	void *p;
	char buf[64];
	PAPI_sprofil_t sp = { buf, sizeof buf, (vptr_t)0, 65536 };

	memset(&o, 0, sizeof o);
	o.domain.eventset = es;
	o.defdomain.domain = PAPI_DOM_USER;
	int newset = PAPI_NULL;
	struct { int line; int rc; } rows[] = {
		{ __LINE__, PAPI_create_eventset(&newset) },
		{ __LINE__, PAPI_add_event(es, PAPI_NATIVE_MASK) },
		{ __LINE__, PAPI_add_named_event(es, API_TASK_CLOCK) },
		{ __LINE__, PAPI_add_events(es, list, 1) },
		{ __LINE__, PAPI_remove_event(es, PAPI_NATIVE_MASK) },
		{ __LINE__, PAPI_remove_named_event(es, API_TASK_CLOCK) },
		{ __LINE__, PAPI_remove_events(es, list, 1) },
		{ __LINE__, PAPI_event_name_to_code(API_TASK_CLOCK, &code) },
		{ __LINE__, PAPI_event_code_to_name(PAPI_TOT_CYC, name) },
		{ __LINE__, PAPI_enum_event(&code, PAPI_ENUM_FIRST) },
		{ __LINE__, PAPI_enum_cmp_event(&code, PAPI_ENUM_FIRST, 0) },
		{ __LINE__, PAPI_get_event_info(PAPI_TOT_CYC, &info) },
		{ __LINE__, PAPI_query_event(PAPI_TOT_CYC) },
		{ __LINE__, PAPI_query_named_event(API_TASK_CLOCK) },
		{ __LINE__, PAPI_num_hwctrs() },
		{ __LINE__, PAPI_num_cmp_hwctrs(0) },
		{ __LINE__, PAPI_get_opt(PAPI_MAX_HWCTRS, NULL) },
		{ __LINE__, PAPI_get_opt(PAPI_HWINFO, &o) },
		{ __LINE__, PAPI_get_opt(PAPI_DOMAIN, &o) },
		{ __LINE__, PAPI_get_cmp_opt(PAPI_MAX_HWCTRS, NULL, 0) },
		{ __LINE__, PAPI_set_opt(PAPI_DEFDOM, &o) },
		{ __LINE__, PAPI_set_domain(PAPI_DOM_USER) },
		{ __LINE__, PAPI_set_cmp_domain(PAPI_DOM_USER, 0) },
		{ __LINE__, PAPI_set_granularity(PAPI_GRN_THR) },
		{ __LINE__, PAPI_set_cmp_granularity(PAPI_GRN_THR, 0) },
		{ __LINE__, PAPI_multiplex_init() },
		{ __LINE__, PAPI_register_thread() },
		{ __LINE__, PAPI_list_threads(tids, &cnt) },
		{ __LINE__, PAPI_get_thr_specific(PAPI_USR1_TLS, &p) },
		{ __LINE__, PAPI_set_thr_specific(PAPI_USR1_TLS, &p) },
		{ __LINE__, PAPI_start(es) },
		{ __LINE__, PAPI_stop(es, v) },
		{ __LINE__, PAPI_read(es, v) },
		{ __LINE__, PAPI_read_ts(es, v, &cyc) },
		{ __LINE__, PAPI_accum(es, v) },
		{ __LINE__, PAPI_reset(es) },
		{ __LINE__, PAPI_write(es, v) },
		{ __LINE__, PAPI_state(es, &st) },
		{ __LINE__, PAPI_num_events(es) },
		{ __LINE__, PAPI_list_events(es, arr, &n) },
		{ __LINE__, PAPI_cleanup_eventset(es) },
		{ __LINE__, PAPI_destroy_eventset(&tmp) },
		{ __LINE__, PAPI_get_multiplex(es) },
		{ __LINE__, PAPI_set_multiplex(es) },
		{ __LINE__, PAPI_attach(es, (unsigned long)getpid()) },
		{ __LINE__, PAPI_detach(es) },
		{ __LINE__, PAPI_assign_eventset_component(es, 0) },
		{ __LINE__, PAPI_get_eventset_component(es) },
		{ __LINE__, PAPI_get_event_component(PAPI_NATIVE_MASK) },
		{ __LINE__, PAPI_overflow(es, PAPI_NATIVE_MASK, 1000, 0, dummy_handler) },
		{ __LINE__, PAPI_profil(buf, sizeof buf, 0, 65536, es, PAPI_NATIVE_MASK, 1000,
				       PAPI_PROFIL_POSIX) },
		{ __LINE__, PAPI_sprofil(&sp, 1, es, PAPI_NATIVE_MASK, 1000, PAPI_PROFIL_POSIX) },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(rows[i].rc, PAPI_ENOINIT);
	}
	th_at(0);
	TH_EQ(newset, PAPI_NULL);
	TH_CHECK(PAPI_get_hardware_info() == NULL);
	TH_CHECK(PAPI_get_executable_info() == NULL);
	TH_CHECK(PAPI_get_shared_lib_info() == NULL);
	/* the debug level may be read (and errors named) without the library */
	TH_EQ(PAPI_get_opt(PAPI_DEBUG, &o), PAPI_OK);
	TH_CHECK(PAPI_strerror(PAPI_ENOINIT) != NULL);
}

static void before_init(void)
{
	TH_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);
	expect_enoinit(0);
	expect_enoinit(PAPI_NULL);
	TH_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);
}

static void versions(void)
{
	static const struct { int line; int version; } bad[] = {
		{ __LINE__, 0 },
		{ __LINE__, -1 },
		{ __LINE__, PAPI_VERSION_NUMBER(3, 5, 0, 0) },
		{ __LINE__, PAPI_VERSION_NUMBER(6, 0, 0, 0) },
		{ __LINE__, PAPI_VER_CURRENT + PAPI_VERSION_NUMBER(0, 1, 0, 0) },
		{ __LINE__, PAPI_VERSION_NUMBER(8, 0, 0, 0) },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		th_at(bad[i].line);
		TH_EQ(PAPI_library_init(bad[i].version), PAPI_EINVAL);
		TH_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);
	}
	th_at(0);
	TH_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	TH_EQ(PAPI_is_initialized(), PAPI_LOW_LEVEL_INITED);
	/* again: harmless, answers the version */
	TH_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	TH_EQ(PAPI_is_initialized(), PAPI_LOW_LEVEL_INITED);
	TH_EQ(PAPI_library_init(PAPI_VERSION_NUMBER(3, 5, 0, 0)), PAPI_EINVAL);
	TH_EQ(PAPI_is_initialized(), PAPI_LOW_LEVEL_INITED);
	/* thread support adds its level */
	TH_EQ(PAPI_thread_init(pthread_self_id), PAPI_OK);
	TH_CHECK(PAPI_is_initialized() & PAPI_THREAD_LEVEL_INITED);
	TH_CHECK(PAPI_is_initialized() & PAPI_LOW_LEVEL_INITED);
	PAPI_shutdown();
}

static void shutdown_and_again(void)
{
	int es = PAPI_NULL, old;
	long long v = -1;
	static const char *const pf[] = { API_PAGE_FAULTS };

	api_init();
	es = api_set_of(pf, 1);
	old = es;
	TH_EQ(PAPI_start(es), PAPI_OK);
	/* shutting down with a running set stops and frees it */
	PAPI_shutdown();
	TH_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);
	expect_enoinit(old);
	PAPI_shutdown(); /* twice: harmless */
	TH_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);
	/* and the library can start over, counting correctly */
	TH_EQ(PAPI_library_init(PAPI_VER_CURRENT), PAPI_VER_CURRENT);
	int st;
	if (PAPI_state(old, &st) == PAPI_OK) {
		/* the id was reused by nothing yet: it must not be a live set */
		TH_CHECK(0);
	}
	es = api_set_of(pf, 1);
	TH_EQ(PAPI_start(es), PAPI_OK);
	touch_fresh_pages(NPAGES);
	TH_EQ(PAPI_stop(es, &v), PAPI_OK);
	TH_NEAR(v, NPAGES, 0.02);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	PAPI_shutdown();
	PAPI_shutdown();
}

static void shutdown_before_init(void)
{
	PAPI_shutdown(); /* never initialised: nothing happens */
	TH_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);
	api_init();
	PAPI_shutdown();
}

static void disable_checks_before_init(void)
{
	int rc;

	TH_EQ(PAPI_disable_component(-1), PAPI_ENOCMP);
	TH_EQ(PAPI_disable_component(1000), PAPI_ENOCMP);
	TH_EQ(PAPI_disable_component_by_name("no_such_component"), PAPI_ENOCMP);
	rc = PAPI_disable_component_by_name(NULL);
	TH_CHECK(rc == PAPI_EINVAL || rc == PAPI_ENOCMP);
	/* the refusals disabled nothing */
	api_init();
	const PAPI_component_info_t *ci = PAPI_get_component_info(0);
	TH_CHECK(ci != NULL && ci->disabled == 0);
	TH_EQ(PAPI_query_named_event(API_TASK_CLOCK), PAPI_OK);
	/* too late now */
	TH_EQ(PAPI_disable_component(0), PAPI_ENOINIT);
	TH_EQ(PAPI_disable_component_by_name("perf_event"), PAPI_ENOINIT);
	ci = PAPI_get_component_info(0);
	TH_CHECK(ci != NULL && ci->disabled == 0);
	PAPI_shutdown();
}

static void check_perf_disabled(void)
{
	int es = PAPI_NULL, rc;
	const PAPI_component_info_t *ci = PAPI_get_component_info(0);

	TH_CHECK(ci != NULL);
	if (!ci)
		return;
	TH_CHECK(ci->disabled != 0);
	TH_CHECK(ci->disabled_reason[0] != '\0');
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	rc = PAPI_add_named_event(es, API_TASK_CLOCK);
	TH_CHECK(rc == PAPI_ECMP_DISABLED || rc == PAPI_ENOEVNT);
	TH_EQ(PAPI_num_events(es), 0);
	rc = PAPI_assign_eventset_component(es, 0);
	TH_CHECK(rc == PAPI_ECMP_DISABLED || rc == PAPI_ENOCMP);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
}

static void disable_by_name(void)
{
	TH_EQ(PAPI_get_component_index("perf_event"), 0);
	TH_EQ(PAPI_disable_component_by_name("perf_event"), PAPI_OK);
	api_init();
	check_perf_disabled();
	PAPI_shutdown();
}

static void disable_by_index(void)
{
	/* perf_event is component 0 (checked in disable_by_name) */
	TH_EQ(PAPI_disable_component(0), PAPI_OK);
	api_init();
	check_perf_disabled();
	PAPI_shutdown();
}

int main(void)
{
	RUN_FRESH(before_init);
	RUN_FRESH(versions);
	RUN_FRESH(shutdown_and_again);
	RUN_FRESH(shutdown_before_init);
	RUN_FRESH(disable_checks_before_init);
	RUN_FRESH(disable_by_name);
	RUN_FRESH(disable_by_index);
	return th_done();
}
