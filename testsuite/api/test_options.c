/*
 * test_options.c - PAPI_get_opt / PAPI_set_opt for every option in papi.h,
 * PAPI_get_cmp_opt, PAPI_set_domain / PAPI_set_cmp_domain,
 * PAPI_set_granularity / PAPI_set_cmp_granularity, PAPI_set_debug,
 * PAPI_num_hwctrs / PAPI_num_cmp_hwctrs, PAPI_multiplex_init,
 * PAPI_set_multiplex / PAPI_get_multiplex.
 *
 * Value options (PAPI_CLOCKRATE, PAPI_MAX_CPUS, PAPI_MAX_HWCTRS,
 * PAPI_MAX_MPX_CTRS, PAPI_LIB_VERSION, PAPI_DEFDOM, PAPI_DEFGRN) return
 * their value from PAPI_get_opt; read-only options are refused by
 * PAPI_set_opt with PAPI_EINVAL.
 */
#include <sys/time.h>
#include <sys/wait.h>
#include "api_util.h"

static const PAPI_component_info_t *ci;
static const PAPI_hw_info_t *hw;

static void test_value_options(void)
{
	PAPI_option_t o;
	int mhz = PAPI_get_opt(PAPI_CLOCKRATE, NULL);

	TH_EQ(PAPI_get_opt(PAPI_LIB_VERSION, NULL), PAPI_VERSION);
	TH_EQ(PAPI_get_opt(PAPI_MAX_HWCTRS, NULL), ci->num_cntrs);
	TH_EQ(PAPI_get_opt(PAPI_MAX_MPX_CTRS, NULL), ci->num_mpx_cntrs);
	TH_EQ(PAPI_get_opt(PAPI_MAX_CPUS, NULL), hw->ncpu);
	TH_EQ(PAPI_get_opt(PAPI_DEFDOM, NULL), ci->default_domain);
	TH_EQ(PAPI_get_opt(PAPI_DEFGRN, NULL), ci->default_granularity);
	/* perf_event_paranoid = 2: user domain, per-thread by default */
	TH_EQ(ci->default_domain, PAPI_DOM_USER);
	TH_EQ(ci->default_granularity, PAPI_GRN_THR);
	/* the clock rate is the hardware info's (PAPI 3.5: mhz, later cpu_max_mhz) */
	TH_CHECK(mhz > 0);
	TH_CHECK(mhz == hw->cpu_max_mhz || mhz == (int)hw->mhz || mhz == hw->clock_mhz);
	/* the same through PAPI_get_cmp_opt on component 0 */
	TH_EQ(PAPI_get_cmp_opt(PAPI_MAX_HWCTRS, NULL, 0), ci->num_cntrs);
	TH_EQ(PAPI_get_cmp_opt(PAPI_MAX_MPX_CTRS, NULL, 0), ci->num_mpx_cntrs);
	TH_EQ(PAPI_get_cmp_opt(PAPI_DEFDOM, NULL, 0), ci->default_domain);
	TH_EQ(PAPI_get_cmp_opt(PAPI_DEFGRN, NULL, 0), ci->default_granularity);
	TH_EQ(PAPI_get_cmp_opt(PAPI_COMPONENTINFO, &o, 0), PAPI_OK);
	TH_CHECK(o.cmp_info == ci);
	TH_EQ(PAPI_get_cmp_opt(PAPI_MAX_HWCTRS, NULL, PAPI_num_components()), PAPI_ENOCMP);
	TH_EQ(PAPI_get_cmp_opt(PAPI_MAX_HWCTRS, NULL, -1), PAPI_ENOCMP);
	TH_EQ(PAPI_get_cmp_opt(PAPI_COMPONENTINFO, NULL, 0), PAPI_EINVAL);
	TH_EQ(PAPI_get_cmp_opt(12345, &o, 0), PAPI_EINVAL);
	TH_EQ(PAPI_num_hwctrs(), ci->num_cntrs);
	TH_EQ(PAPI_num_cmp_hwctrs(0), ci->num_cntrs);
	TH_EQ(PAPI_num_cmp_hwctrs(PAPI_num_components()), PAPI_ENOCMP);
}

static void test_pointer_options(void)
{
	PAPI_option_t o;

	memset(&o, 0, sizeof o);
	TH_EQ(PAPI_get_opt(PAPI_HWINFO, &o), PAPI_OK);
	TH_CHECK(o.hw_info == hw);
	memset(&o, 0, sizeof o);
	TH_EQ(PAPI_get_opt(PAPI_EXEINFO, &o), PAPI_OK);
	TH_CHECK(o.exe_info != NULL && o.exe_info == PAPI_get_executable_info());
	if (o.exe_info)
		TH_CHECK(strstr(o.exe_info->fullname, "api_options") != NULL);
	memset(&o, 0, sizeof o);
	TH_EQ(PAPI_get_opt(PAPI_SHLIBINFO, &o), PAPI_OK);
	TH_CHECK(o.shlib_info != NULL);
	if (o.shlib_info) {
		int found = 0;
		TH_CHECK(o.shlib_info->count > 0);
		for (int i = 0; i < o.shlib_info->count; i++)
			if (strstr(o.shlib_info->map[i].name, "libtally") ||
			    strstr(o.shlib_info->map[i].name, "libpapi"))
				found = 1;
		TH_CHECK(found);
	}
	memset(&o, 0, sizeof o);
	TH_EQ(PAPI_get_opt(PAPI_COMPONENTINFO, &o), PAPI_OK);
	TH_CHECK(o.cmp_info == ci);
	memset(&o, 0, sizeof o);
	TH_EQ(PAPI_get_opt(PAPI_PRELOAD, &o), PAPI_OK);
	TH_CHECK(strcmp(o.preload.lib_preload_env, "LD_PRELOAD") == 0);
	TH_CHECK(strcmp(o.preload.lib_dir_env, "LD_LIBRARY_PATH") == 0);
	TH_EQ(o.preload.lib_dir_sep, ':');

	/* each of them needs somewhere to put the answer */
	static const struct { int line; int opt; } need_ptr[] = {
		{ __LINE__, PAPI_HWINFO }, { __LINE__, PAPI_EXEINFO },
		{ __LINE__, PAPI_SHLIBINFO }, { __LINE__, PAPI_COMPONENTINFO },
		{ __LINE__, PAPI_PRELOAD }, { __LINE__, PAPI_DEBUG },
		{ __LINE__, PAPI_DOMAIN }, { __LINE__, PAPI_GRANUL },
		{ __LINE__, PAPI_INHERIT }, { __LINE__, PAPI_MULTIPLEX },
		{ __LINE__, PAPI_DEF_MPX_NS }, { __LINE__, PAPI_ATTACH },
		{ __LINE__, PAPI_DETACH }, { __LINE__, PAPI_DEF_ITIMER },
		{ __LINE__, PAPI_DEF_ITIMER_NS }, { __LINE__, PAPI_CPU_ATTACH },
	};
	for (size_t i = 0; i < sizeof need_ptr / sizeof need_ptr[0]; i++) {
		th_at(need_ptr[i].line);
		TH_EQ(PAPI_get_opt(need_ptr[i].opt, NULL), PAPI_EINVAL);
		TH_EQ(PAPI_set_opt(need_ptr[i].opt, NULL), PAPI_EINVAL);
	}
	th_at(0);
}

/* Options that are read-only or do not exist: PAPI_set_opt says EINVAL. */
static void test_readonly_and_unknown(void)
{
	PAPI_option_t o;
	PAPI_hw_info_t fake;

	memset(&o, 0, sizeof o);
	o.hw_info = &fake;
	static const struct { int line; int opt; } ro[] = {
		{ __LINE__, PAPI_CLOCKRATE }, { __LINE__, PAPI_MAX_HWCTRS },
		{ __LINE__, PAPI_MAX_MPX_CTRS }, { __LINE__, PAPI_MAX_CPUS },
		{ __LINE__, PAPI_HWINFO }, { __LINE__, PAPI_EXEINFO },
		{ __LINE__, PAPI_SHLIBINFO }, { __LINE__, PAPI_LIB_VERSION },
		{ __LINE__, PAPI_COMPONENTINFO }, { __LINE__, PAPI_PRELOAD },
		{ __LINE__, PAPI_PROFIL },
	};
	for (size_t i = 0; i < sizeof ro / sizeof ro[0]; i++) {
		th_at(ro[i].line);
		TH_EQ(PAPI_set_opt(ro[i].opt, &o), PAPI_EINVAL);
	}
	static const struct { int line; int opt; } bad[] = {
		{ __LINE__, 0 }, { __LINE__, -1 }, { __LINE__, 10 },
		{ __LINE__, 30 }, { __LINE__, 63 }, { __LINE__, 1000 },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		th_at(bad[i].line);
		TH_EQ(PAPI_get_opt(bad[i].opt, &o), PAPI_EINVAL);
		TH_EQ(PAPI_set_opt(bad[i].opt, &o), PAPI_EINVAL);
	}
	th_at(0);
	TH_CHECK(hw->ncpu == PAPI_get_opt(PAPI_MAX_CPUS, NULL)); /* unchanged */
}

static int debug_handler_calls;
static int debug_handler(int code)
{
	(void)code;
	debug_handler_calls++;
	return code;
}

static void test_debug(void)
{
	PAPI_option_t o;

	TH_EQ(PAPI_set_debug(PAPI_VERB_ECONT), PAPI_OK);
	memset(&o, 0, sizeof o);
	TH_EQ(PAPI_get_opt(PAPI_DEBUG, &o), PAPI_OK);
	TH_EQ(o.debug.level, PAPI_VERB_ECONT);
	TH_EQ(PAPI_set_debug(PAPI_QUIET), PAPI_OK);
	TH_EQ(PAPI_get_opt(PAPI_DEBUG, &o), PAPI_OK);
	TH_EQ(o.debug.level, PAPI_QUIET);
	TH_EQ(PAPI_set_debug(99), PAPI_EINVAL);
	TH_EQ(PAPI_set_debug(-5), PAPI_EINVAL);
	TH_EQ(PAPI_get_opt(PAPI_DEBUG, &o), PAPI_OK);
	TH_EQ(o.debug.level, PAPI_QUIET); /* unchanged by the refusals */
	memset(&o, 0, sizeof o);
	o.debug.level = 77;
	TH_EQ(PAPI_set_opt(PAPI_DEBUG, &o), PAPI_EINVAL);
	/* a handler set through PAPI_set_opt is reported back */
	o.debug.level = PAPI_VERB_ECONT;
	o.debug.handler = debug_handler;
	TH_EQ(PAPI_set_opt(PAPI_DEBUG, &o), PAPI_OK);
	memset(&o, 0, sizeof o);
	TH_EQ(PAPI_get_opt(PAPI_DEBUG, &o), PAPI_OK);
	TH_EQ(o.debug.level, PAPI_VERB_ECONT);
	TH_CHECK(o.debug.handler == debug_handler);
	TH_EQ(PAPI_set_debug(PAPI_QUIET), PAPI_OK);

	/* PAPI_VERB_ESTOP: an error prints and ends the program */
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int es = PAPI_NULL;
		PAPI_set_debug(PAPI_VERB_ESTOP);
		PAPI_create_eventset(&es);
		PAPI_add_named_event(es, "perf::NO-SUCH-EVENT");
		_exit(0); /* not reached when ESTOP works */
	}
	int status = 0;
	TH_EQ(waitpid(pid, &status, 0), pid);
	TH_CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
}

static void test_domain_granularity(void)
{
	int es = PAPI_NULL;
	PAPI_option_t o;

	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es, API_TASK_CLOCK), PAPI_OK);
	memset(&o, 0, sizeof o);
	o.domain.eventset = es;
	TH_EQ(PAPI_get_opt(PAPI_DOMAIN, &o), PAPI_OK);
	TH_EQ(o.domain.domain, ci->default_domain);
	o.domain.domain = PAPI_DOM_USER;
	TH_EQ(PAPI_set_opt(PAPI_DOMAIN, &o), PAPI_OK);
	static const struct { int line; int dom; } bad_dom[] = {
		{ __LINE__, 0 }, { __LINE__, 0x10 }, { __LINE__, PAPI_DOM_ALL + 1 }, { __LINE__, -7 },
	};
	for (size_t i = 0; i < sizeof bad_dom / sizeof bad_dom[0]; i++) {
		th_at(bad_dom[i].line);
		o.domain.eventset = es;
		o.domain.domain = bad_dom[i].dom;
		int rc = PAPI_set_opt(PAPI_DOMAIN, &o);
		TH_CHECK(rc == PAPI_EINVAL || rc == PAPI_EINVAL_DOM);
		TH_EQ(PAPI_set_domain(bad_dom[i].dom), PAPI_EINVAL);
		TH_EQ(PAPI_set_cmp_domain(bad_dom[i].dom, 0), PAPI_EINVAL);
		o.defdomain.def_cidx = 0;
		o.defdomain.domain = bad_dom[i].dom;
		TH_EQ(PAPI_set_opt(PAPI_DEFDOM, &o), PAPI_EINVAL);
	}
	th_at(0);
	o.domain.eventset = es;
	TH_EQ(PAPI_get_opt(PAPI_DOMAIN, &o), PAPI_OK);
	TH_EQ(o.domain.domain, PAPI_DOM_USER);

	memset(&o, 0, sizeof o);
	o.granularity.eventset = es;
	TH_EQ(PAPI_get_opt(PAPI_GRANUL, &o), PAPI_OK);
	TH_EQ(o.granularity.granularity, PAPI_GRN_THR);
	o.granularity.granularity = PAPI_GRN_THR;
	TH_EQ(PAPI_set_opt(PAPI_GRANUL, &o), PAPI_OK);
	static const struct { int line; int grn; } bad_grn[] = {
		{ __LINE__, 0 }, { __LINE__, 0x20 }, { __LINE__, 3 }, { __LINE__, -1 },
	};
	for (size_t i = 0; i < sizeof bad_grn / sizeof bad_grn[0]; i++) {
		th_at(bad_grn[i].line);
		o.granularity.eventset = es;
		o.granularity.granularity = bad_grn[i].grn;
		TH_EQ(PAPI_set_opt(PAPI_GRANUL, &o), PAPI_EINVAL);
		TH_EQ(PAPI_set_granularity(bad_grn[i].grn), PAPI_EINVAL);
		TH_EQ(PAPI_set_cmp_granularity(bad_grn[i].grn, 0), PAPI_EINVAL);
	}
	th_at(0);
	TH_EQ(PAPI_set_cmp_domain(PAPI_DOM_USER, PAPI_num_components()), PAPI_ENOCMP);
	TH_EQ(PAPI_set_cmp_granularity(PAPI_GRN_THR, PAPI_num_components()), PAPI_ENOCMP);

	/* a running set refuses option changes */
	long long v[1];
	TH_EQ(PAPI_start(es), PAPI_OK);
	o.domain.eventset = es;
	o.domain.domain = PAPI_DOM_USER;
	TH_EQ(PAPI_set_opt(PAPI_DOMAIN, &o), PAPI_EISRUN);
	o.granularity.eventset = es;
	o.granularity.granularity = PAPI_GRN_THR;
	TH_EQ(PAPI_set_opt(PAPI_GRANUL, &o), PAPI_EISRUN);
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);

	/* the default domain applies to sets created afterwards */
	int avail = ci->available_domains;
	TH_CHECK(avail & PAPI_DOM_USER);
	int other = (avail & PAPI_DOM_KERNEL) ? (PAPI_DOM_USER | PAPI_DOM_KERNEL) : PAPI_DOM_USER;
	TH_EQ(PAPI_set_domain(other), PAPI_OK);
	TH_EQ(PAPI_get_opt(PAPI_DEFDOM, NULL), other);
	es = PAPI_NULL;
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_assign_eventset_component(es, 0), PAPI_OK);
	o.domain.eventset = es;
	TH_EQ(PAPI_get_opt(PAPI_DOMAIN, &o), PAPI_OK);
	TH_EQ(o.domain.domain, other);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	/* a domain the component cannot count is refused */
	if ((avail & PAPI_DOM_ALL) != PAPI_DOM_ALL)
		TH_EQ(PAPI_set_domain(PAPI_DOM_ALL & ~avail), PAPI_EINVAL);
	TH_EQ(PAPI_set_cmp_domain(PAPI_DOM_USER, 0), PAPI_OK);
	TH_EQ(PAPI_get_cmp_opt(PAPI_DEFDOM, NULL, 0), PAPI_DOM_USER);
	TH_EQ(PAPI_set_granularity(PAPI_GRN_THR), PAPI_OK);
	TH_EQ(PAPI_get_opt(PAPI_DEFGRN, NULL), PAPI_GRN_THR);
}

static void test_inherit(void)
{
	int es = PAPI_NULL;
	PAPI_option_t o;
	long long v = -1;
	const long n = 2000;

	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_assign_eventset_component(es, 0), PAPI_OK);
	memset(&o, 0, sizeof o);
	o.inherit.eventset = es;
	TH_EQ(PAPI_get_opt(PAPI_INHERIT, &o), PAPI_OK);
	TH_EQ(o.inherit.inherit, PAPI_INHERIT_NONE);
	o.inherit.inherit = PAPI_INHERIT_ALL;
	TH_EQ(PAPI_set_opt(PAPI_INHERIT, &o), PAPI_OK);
	o.inherit.inherit = -3;
	TH_EQ(PAPI_get_opt(PAPI_INHERIT, &o), PAPI_OK);
	TH_EQ(o.inherit.inherit, PAPI_INHERIT_ALL);
	/* inherited counting includes a child's page faults */
	TH_EQ(PAPI_add_named_event(es, API_PAGE_FAULTS), PAPI_OK);
	TH_EQ(PAPI_start(es), PAPI_OK);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		touch_fresh_pages(n);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	TH_EQ(PAPI_stop(es, &v), PAPI_OK);
	TH_CHECK(v >= n); /* the child's n faults, plus the fork's own */
	TH_CHECK(v < 3 * n);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
}

static void test_multiplex(void)
{
	int es = PAPI_NULL;
	PAPI_option_t o;

	TH_EQ(PAPI_multiplex_init(), PAPI_OK);
	TH_EQ(PAPI_multiplex_init(), PAPI_OK); /* harmless twice */
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_assign_eventset_component(es, 0), PAPI_OK);
	TH_EQ(PAPI_get_multiplex(es), 0); /* PAPI_OK: not multiplexed */
	TH_EQ(PAPI_set_multiplex(es), PAPI_OK);
	TH_CHECK(PAPI_get_multiplex(es) > 0);
	int st = 0;
	TH_EQ(PAPI_state(es, &st), PAPI_OK);
	TH_CHECK(st & PAPI_MULTIPLEXING);
	/* once is enough: doing it again is an invalid request */
	TH_EQ(PAPI_set_multiplex(es), PAPI_EINVAL);
	memset(&o, 0, sizeof o);
	o.multiplex.eventset = es;
	TH_CHECK(PAPI_get_opt(PAPI_MULTIPLEX, &o) > 0);
	/* a multiplexed set still counts */
	long long v = 0;
	TH_EQ(PAPI_add_named_event(es, API_TASK_CLOCK), PAPI_OK);
	th_clock_begin();
	TH_EQ(PAPI_start(es), PAPI_OK);
	long long t0 = th_thread_cpu_ns();
	th_spin_cpu_ns(50000000);
	long long t1 = th_thread_cpu_ns();
	TH_EQ(PAPI_stop(es, &v), PAPI_OK);
	TH_NEAR_CLOCK(v, t1 - t0);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);

	/* through PAPI_set_opt, with a period */
	es = PAPI_NULL;
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_assign_eventset_component(es, 0), PAPI_OK);
	memset(&o, 0, sizeof o);
	o.multiplex.eventset = es;
	o.multiplex.ns = 2000000;
	o.multiplex.flags = PAPI_MULTIPLEX_DEFAULT;
	TH_EQ(PAPI_set_opt(PAPI_MULTIPLEX, &o), PAPI_OK);
	TH_CHECK(PAPI_get_multiplex(es) > 0);
	o.multiplex.flags = 0x1000; /* no such flag */
	TH_EQ(PAPI_set_opt(PAPI_MULTIPLEX, &o), PAPI_EINVAL);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);

	/* the default period */
	memset(&o, 0, sizeof o);
	TH_EQ(PAPI_get_opt(PAPI_DEF_MPX_NS, &o), PAPI_OK);
	TH_CHECK(o.multiplex.ns > 0);
	o.multiplex.ns = 7000000;
	TH_EQ(PAPI_set_opt(PAPI_DEF_MPX_NS, &o), PAPI_OK);
	o.multiplex.ns = 0;
	TH_EQ(PAPI_get_opt(PAPI_DEF_MPX_NS, &o), PAPI_OK);
	TH_EQ(o.multiplex.ns, 7000000);
	o.multiplex.ns = -1;
	TH_EQ(PAPI_set_opt(PAPI_DEF_MPX_NS, &o), PAPI_EINVAL);
}

static void test_itimer_and_addresses(void)
{
	PAPI_option_t o;
	int es = PAPI_NULL;

	memset(&o, 0, sizeof o);
	TH_EQ(PAPI_get_opt(PAPI_DEF_ITIMER, &o), PAPI_OK);
	TH_CHECK(o.itimer.itimer_num == ITIMER_REAL || o.itimer.itimer_num == ITIMER_VIRTUAL ||
		 o.itimer.itimer_num == ITIMER_PROF);
	TH_CHECK(o.itimer.itimer_sig > 0);
	TH_CHECK(o.itimer.ns > 0);
	o.itimer.itimer_num = 42;
	TH_EQ(PAPI_set_opt(PAPI_DEF_ITIMER, &o), PAPI_EINVAL);
	memset(&o, 0, sizeof o);
	TH_EQ(PAPI_get_opt(PAPI_DEF_ITIMER_NS, &o), PAPI_OK);
	TH_CHECK(o.itimer.ns > 0);
	o.itimer.ns = -5;
	TH_EQ(PAPI_set_opt(PAPI_DEF_ITIMER_NS, &o), PAPI_EINVAL);

	/* address ranges need hardware support perf software events lack */
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es, API_TASK_CLOCK), PAPI_OK);
	memset(&o, 0, sizeof o);
	o.addr.eventset = es;
	o.addr.start = (vptr_t)test_itimer_and_addresses;
	o.addr.end = (vptr_t)((char *)o.addr.start + 64);
	TH_CHECK(PAPI_set_opt(PAPI_DATA_ADDRESS, &o) < 0);
	TH_CHECK(PAPI_set_opt(PAPI_INSTR_ADDRESS, &o) < 0);
	/* write-only options: nothing to read back (EINVAL), or the
	 * component's "not implemented" (ECMP) */
	int rc = PAPI_get_opt(PAPI_DATA_ADDRESS, &o);
	TH_CHECK(rc == PAPI_EINVAL || rc == PAPI_ECMP);
	rc = PAPI_get_opt(PAPI_INSTR_ADDRESS, &o);
	TH_CHECK(rc == PAPI_EINVAL || rc == PAPI_ECMP);
	/* a CPU that does not exist */
	memset(&o, 0, sizeof o);
	o.cpu.eventset = es;
	o.cpu.cpu_num = 1u << 20;
	TH_CHECK(PAPI_set_opt(PAPI_CPU_ATTACH, &o) < 0);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	/* PAPI_USER_EVENTS_FILE has nothing to read back */
	TH_EQ(PAPI_get_opt(PAPI_USER_EVENTS_FILE, &o), PAPI_EINVAL);
	TH_EQ(PAPI_set_opt(PAPI_USER_EVENTS_FILE, NULL), PAPI_EINVAL);
}

int main(void)
{
	api_init();
	ci = PAPI_get_component_info(0);
	hw = PAPI_get_hardware_info();
	if (!ci || !hw) {
		fprintf(stderr, "no component 0 or hardware info\n");
		return 1;
	}
	test_value_options();
	test_pointer_options();
	test_readonly_and_unknown();
	test_debug();
	test_domain_granularity();
	test_inherit();
	test_multiplex();
	test_itimer_and_addresses();
	PAPI_shutdown();
	return th_done();
}
