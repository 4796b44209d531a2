/*
 * test_bad_input.c - acceptance: hostile input never crashes and always
 * gets its documented error.  Unknown and overlong event names (longer
 * than PAPI_MAX_STR_LEN, and 10 KB), invalid event codes, NULL for every
 * pointer argument, double shutdown, calls before init.
 */
#include "api_util.h"
#include "fork_util.h"

static char long_name[PAPI_MAX_STR_LEN + 2];
static char huge_name[10 * 1024];
static char huge_valid_prefix[10 * 1024];

static void make_names(void)
{
	memset(long_name, 'A', sizeof long_name - 1);
	memcpy(long_name, "perf::", 6);
	memset(huge_name, 'Z', sizeof huge_name - 1);
	/* a real event name followed by 10 KB: must not be cut back to the event */
	memset(huge_valid_prefix, 'x', sizeof huge_valid_prefix - 1);
	memcpy(huge_valid_prefix, "perf::TASK-CLOCK:", 17);
}

static int not_found(int rc)
{
	return rc == PAPI_ENOEVNT || rc == PAPI_EINVAL;
}

static void test_bad_names(int es)
{
	const struct { int line; const char *name; } names[] = {
		{ __LINE__, "" },
		{ __LINE__, "NO_SUCH_EVENT" },
		{ __LINE__, "perf::" },
		{ __LINE__, "::" },
		{ __LINE__, ":::" },
		{ __LINE__, "perf_event:::" },
		{ __LINE__, "perf::TASK-CLOCK:NO_SUCH_UMASK" },
		{ __LINE__, "PAPI_" },
		{ __LINE__, "PAPI_TOT_CYC_AND_MORE" },
		{ __LINE__, "%s%s%s%n" },
		{ __LINE__, long_name },
		{ __LINE__, huge_name },
		{ __LINE__, huge_valid_prefix },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		int code = 12345;
		th_at(names[i].line);
		TH_CHECK(not_found(PAPI_event_name_to_code(names[i].name, &code)));
		TH_EQ(code, 12345); /* untouched on failure */
		TH_CHECK(not_found(PAPI_add_named_event(es, names[i].name)));
		TH_CHECK(not_found(PAPI_remove_named_event(es, names[i].name)));
		TH_CHECK(not_found(PAPI_query_named_event(names[i].name)));
		TH_CHECK(PAPI_get_component_index(names[i].name) < 0);
	}
	th_at(0);
	TH_EQ(PAPI_num_events(es), 1);
}

static void test_bad_codes(int es)
{
	static const struct { int line; int code; } codes[] = {
		{ __LINE__, 0 },
		{ __LINE__, -1 },
		{ __LINE__, PAPI_NATIVE_MASK | 0xFFFFFF },
		{ __LINE__, PAPI_PRESET_MASK | 0x7FFF },
		{ __LINE__, PAPI_PRESET_MASK | 200 },
		{ __LINE__, PAPI_UE_MASK | 0x3FFFFFFF },
		{ __LINE__, 0x12345678 },
	};
	char name[PAPI_HUGE_STR_LEN];
	PAPI_event_info_t info;

	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		int c = codes[i].code, rc;
		th_at(codes[i].line);
		rc = PAPI_add_event(es, c);
		TH_CHECK(rc == PAPI_ENOEVNT || rc == PAPI_ENOTPRESET);
		rc = PAPI_remove_event(es, c);
		TH_CHECK(rc == PAPI_ENOEVNT || rc == PAPI_ENOTPRESET || rc == PAPI_EINVAL);
		rc = PAPI_query_event(c);
		TH_CHECK(rc == PAPI_ENOEVNT || rc == PAPI_ENOTPRESET);
		rc = PAPI_event_code_to_name(c, name);
		TH_CHECK(rc == PAPI_ENOEVNT || rc == PAPI_ENOTPRESET);
		rc = PAPI_get_event_info(c, &info);
		TH_CHECK(rc == PAPI_ENOEVNT || rc == PAPI_ENOTPRESET);
		TH_CHECK(PAPI_get_event_component(c) < 0);
		rc = PAPI_add_events(es, &c, 1);
		TH_CHECK(rc == PAPI_ENOEVNT || rc == PAPI_ENOTPRESET);
		/* enumeration from a bogus start goes nowhere */
		int e = c;
		rc = PAPI_enum_event(&e, PAPI_ENUM_EVENTS);
		TH_CHECK(rc < 0);
	}
	th_at(0);
	/* preset out of range is "not a preset" */
	TH_EQ(PAPI_add_event(es, PAPI_PRESET_MASK | 200), PAPI_ENOTPRESET);
	TH_EQ(PAPI_add_event(es, PAPI_PRESET_MASK | 0x7FFF), PAPI_ENOTPRESET);
	TH_EQ(PAPI_add_event(es, PAPI_NATIVE_MASK | 0xFFFFFF), PAPI_ENOEVNT);
	TH_EQ(PAPI_num_events(es), 1);
}

static void handler(int es, void *addr, long long ov, void *ctx)
{
	(void)es; (void)addr; (void)ov; (void)ctx;
}

static void test_null_pointers(int es, int tc)
{
	long long v[2], cyc;
	int n = 2, arr[2], code;
	char name[PAPI_HUGE_STR_LEN];
	PAPI_event_info_t info;
	PAPI_thread_id_t tids[2];
	(void)v; (void)cyc; (void)code; (void)name; (void)info; (void)tids; (void)arr;

	struct { int line; int rc; } rows[] = {
		{ __LINE__, PAPI_create_eventset(NULL) },
		{ __LINE__, PAPI_destroy_eventset(NULL) },
		{ __LINE__, PAPI_add_events(es, NULL, 1) },
		{ __LINE__, PAPI_remove_events(es, NULL, 1) },
		{ __LINE__, PAPI_add_named_event(es, NULL) },
		{ __LINE__, PAPI_remove_named_event(es, NULL) },
		{ __LINE__, PAPI_query_named_event(NULL) },
		{ __LINE__, PAPI_event_name_to_code(NULL, &code) },
		{ __LINE__, PAPI_event_name_to_code(API_TASK_CLOCK, NULL) },
		{ __LINE__, PAPI_event_code_to_name(tc, NULL) },
		{ __LINE__, PAPI_get_event_info(tc, NULL) },
		{ __LINE__, PAPI_enum_event(NULL, PAPI_ENUM_FIRST) },
		{ __LINE__, PAPI_enum_cmp_event(NULL, PAPI_ENUM_FIRST, 0) },
		{ __LINE__, PAPI_list_events(es, NULL, &n) },
		{ __LINE__, PAPI_list_events(es, arr, NULL) },
		{ __LINE__, PAPI_state(es, NULL) },
		{ __LINE__, PAPI_read(es, NULL) },
		{ __LINE__, PAPI_read_ts(es, NULL, &cyc) },
		{ __LINE__, PAPI_read_ts(es, v, NULL) },
		{ __LINE__, PAPI_accum(es, NULL) },
		{ __LINE__, PAPI_write(es, NULL) },
		{ __LINE__, PAPI_get_opt(PAPI_HWINFO, NULL) },
		{ __LINE__, PAPI_set_opt(PAPI_DOMAIN, NULL) },
		{ __LINE__, PAPI_get_cmp_opt(PAPI_COMPONENTINFO, NULL, 0) },
		{ __LINE__, PAPI_list_threads(tids, NULL) },
		{ __LINE__, PAPI_get_thr_specific(PAPI_USR1_TLS, NULL) },
		{ __LINE__, PAPI_get_overflow_event_index(es, 1, NULL, &n) },
		{ __LINE__, PAPI_get_overflow_event_index(es, 1, arr, NULL) },
		{ __LINE__, PAPI_overflow(es, tc, 1000000, 0, NULL) },
		{ __LINE__, PAPI_profil(NULL, 64, 0, 65536, es, tc, 1000000, PAPI_PROFIL_POSIX) },
		{ __LINE__, PAPI_sprofil(NULL, 1, es, tc, 1000000, PAPI_PROFIL_POSIX) },
		{ __LINE__, PAPI_get_dmem_info(NULL) },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(rows[i].rc, PAPI_EINVAL);
	}
	th_at(0);
	int rc = PAPI_get_component_index(NULL);
	TH_CHECK(rc == PAPI_EINVAL || rc == PAPI_ENOCMP);
	(void)handler;
	/* the set survived all of it */
	TH_EQ(PAPI_start(es), PAPI_OK);
	TH_EQ(PAPI_read(es, NULL), PAPI_EINVAL);
	TH_EQ(PAPI_accum(es, NULL), PAPI_EINVAL);
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	TH_CHECK(v[0] > 0);
}

static void before_init_and_double_shutdown(void)
{
	int code = 0, es = PAPI_NULL;

	PAPI_shutdown();
	PAPI_shutdown();
	TH_EQ(PAPI_event_name_to_code(huge_name, &code), PAPI_ENOINIT);
	TH_EQ(PAPI_event_name_to_code(NULL, &code) == PAPI_ENOINIT ||
	      PAPI_event_name_to_code(NULL, &code) == PAPI_EINVAL, 1);
	TH_EQ(PAPI_create_eventset(&es), PAPI_ENOINIT);
	TH_EQ(PAPI_add_named_event(0, API_TASK_CLOCK), PAPI_ENOINIT);
	TH_EQ(PAPI_start(0), PAPI_ENOINIT);
	TH_EQ(PAPI_disable_component_by_name(huge_name), PAPI_ENOCMP);
	api_init();
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es, API_TASK_CLOCK), PAPI_OK);
	TH_EQ(PAPI_start(es), PAPI_OK);
	PAPI_shutdown();
	PAPI_shutdown();
	TH_EQ(PAPI_is_initialized(), PAPI_NOT_INITED);
	TH_EQ(PAPI_start(es), PAPI_ENOINIT);
	TH_EQ(PAPI_event_name_to_code(API_TASK_CLOCK, &code), PAPI_ENOINIT);
	TH_CHECK(PAPI_get_hardware_info() == NULL);
}

int main(void)
{
	int es = PAPI_NULL, tc = 0;

	make_names();
	RUN_FRESH(before_init_and_double_shutdown);
	api_init();
	TH_EQ(PAPI_event_name_to_code(API_TASK_CLOCK, &tc), PAPI_OK);
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_event(es, tc), PAPI_OK);
	test_bad_names(es);
	test_bad_codes(es);
	test_null_pointers(es, tc);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	PAPI_shutdown();
	PAPI_shutdown();
	return th_done();
}
