/*
 * test_attach_inherit.c - counting other processes.
 *
 *  - attach: a parent attaches a PAGE-FAULTS set to a forked child, which
 *    touches 20000 pages; the parent's count equals the child's own
 *    getrusage(RUSAGE_SELF) minflt difference over the same span (2%).
 *  - inherit: with PAPI_INHERIT set, a set counting the parent also
 *    counts a forked child that touches 20000 pages: the count equals the
 *    parent's plus the reaped child's minflt (getrusage SELF + CHILDREN
 *    deltas, 2%); without it, only the parent's few (<= its own + 20).
 *  - CPU-wide: as root, PAPI_CPU_ATTACH to CPU 0 counts at least the
 *    faults this thread, pinned there, makes.
 *  - EPERM: in a child that dropped root (setuid nobody), attaching to
 *    pid 1 and CPU-wide counting return PAPI_EPERM (perf_event_paranoid
 *    is 2 here); skipped rows say why when the setting allows them.
 *  - errors: tid 0, a pid that does not exist, attach twice, detach
 *    when not attached, attach/detach a running set.
 */
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "api_util.h"
#include "fork_util.h"
#include "th_sys.h"

#define PAGES 20000

static long minflt(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return ru.ru_minflt;
}

static void test_attach(void)
{
	int go[2], res[2], es = api_set_of((const char *[]){ API_PAGE_FAULTS }, 1);
	long delta = -1;
	long long v = -1;
	pid_t pid;
	char c = 'g';

	TH_EQ(pipe(go) | pipe(res), 0);
	pid = fork();
	if (pid == 0) {
		long before;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		before = minflt(RUSAGE_SELF);
		touch_fresh_pages(PAGES);
		before = minflt(RUSAGE_SELF) - before;
		if (write(res[1], &before, sizeof before) != sizeof before || read(go[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	TH_EQ(PAPI_attach(es, (unsigned long)pid), PAPI_OK);
	TH_EQ(PAPI_attach(es, (unsigned long)pid), PAPI_EINVAL); /* already attached */
	TH_EQ(PAPI_start(es), PAPI_OK);
	TH_EQ(PAPI_detach(es), PAPI_EISRUN);
	TH_EQ(write(go[1], &c, 1), 1);
	TH_EQ(read(res[0], &delta, sizeof delta), (long)sizeof delta);
	TH_EQ(PAPI_stop(es, &v), PAPI_OK);
	TH_EQ(write(go[1], &c, 1), 1);
	waitpid(pid, NULL, 0);
	printf("attach: counted %lld, child's getrusage %ld\n", v, delta);
	TH_CHECK(delta >= PAGES);
	TH_NEAR(v, delta, 0.02);
	TH_EQ(PAPI_detach(es), PAPI_OK);
	TH_EQ(PAPI_detach(es), PAPI_EINVAL);
	struct { int line; int rc; int want; } rows[] = {
		{ __LINE__, PAPI_attach(es, 0), PAPI_EINVAL },
		{ __LINE__, PAPI_attach(es, 0x3ffffff0), PAPI_EINVAL }, /* no such process (ESRCH) */
		{ __LINE__, PAPI_attach(77777, (unsigned long)getpid()), PAPI_ENOEVST },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(rows[i].rc, rows[i].want);
	}
	th_at(0);
	close(go[0]); close(go[1]); close(res[0]); close(res[1]);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
}

static void inherit_row(int line, int inherit)
{
	int es = PAPI_NULL;
	PAPI_option_t o;
	long self0, kids0, want;
	long long v = -1;
	pid_t pid;

	th_at(line);
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_assign_eventset_component(es, 0), PAPI_OK);
	memset(&o, 0, sizeof o);
	o.inherit.eventset = es;
	o.inherit.inherit = inherit ? PAPI_INHERIT_ALL : PAPI_INHERIT_NONE;
	TH_EQ(PAPI_set_opt(PAPI_INHERIT, &o), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es, API_PAGE_FAULTS), PAPI_OK);
	memset(&o, 0, sizeof o);
	o.inherit.eventset = es;
	TH_EQ(PAPI_get_opt(PAPI_INHERIT, &o), PAPI_OK);
	TH_EQ(o.inherit.inherit, inherit ? PAPI_INHERIT_ALL : PAPI_INHERIT_NONE);
	self0 = minflt(RUSAGE_SELF);
	kids0 = minflt(RUSAGE_CHILDREN);
	TH_EQ(PAPI_start(es), PAPI_OK);
	pid = fork();
	if (pid == 0) {
		touch_fresh_pages(PAGES);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	TH_EQ(PAPI_stop(es, &v), PAPI_OK);
	want = minflt(RUSAGE_SELF) - self0 + (inherit ? minflt(RUSAGE_CHILDREN) - kids0 : 0);
	printf("inherit %d: counted %lld, getrusage says %ld\n", inherit, v, want);
	if (inherit) {
		TH_NEAR(v, want, 0.02);
		TH_CHECK(v >= PAGES);
	} else {
		/* a handful of the parent's own faults (fork's copy-on-write) */
		TH_CHECK(v <= want + 20 && v < PAGES / 10);
	}
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	th_at(0);
}

static void test_cpu_wide(void)
{
	int es = PAPI_NULL;
	PAPI_option_t o;
	cpu_set_t one, old;
	long long v = -1;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	sched_getaffinity(0, sizeof old, &old);
	TH_EQ(sched_setaffinity(0, sizeof one, &one), 0);
	es = api_set_of((const char *[]){ API_PAGE_FAULTS }, 1);
	memset(&o, 0, sizeof o);
	o.cpu.eventset = es;
	o.cpu.cpu_num = 0;
	TH_EQ(PAPI_set_opt(PAPI_CPU_ATTACH, &o), PAPI_OK);
	TH_EQ(PAPI_start(es), PAPI_OK);
	touch_fresh_pages(PAGES);
	TH_EQ(PAPI_stop(es, &v), PAPI_OK);
	printf("cpu 0: %lld faults (this thread made %d)\n", v, PAGES);
	TH_CHECK(v >= PAGES);
	sched_setaffinity(0, sizeof old, &old);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
}

/* In a child that gave up root: the kernel refuses, PAPI_EPERM. */
static void as_nobody(void)
{
	PAPI_option_t o;
	int es;

	if (setgid(65534) || setuid(65534)) {
		printf("cannot drop to nobody; EPERM rows not run\n");
		return;
	}
	api_init();
	es = api_set_of((const char *[]){ API_PAGE_FAULTS }, 1);
	TH_EQ(PAPI_attach(es, 1), PAPI_EPERM);
	memset(&o, 0, sizeof o);
	o.cpu.eventset = es;
	o.cpu.cpu_num = 0;
	TH_EQ(PAPI_set_opt(PAPI_CPU_ATTACH, &o), PAPI_EPERM);
	PAPI_perror("as nobody, CPU-wide");
	PAPI_shutdown();
}

int main(void)
{
	int paranoid = th_paranoid() == -99 ? 2 : th_paranoid();

	if (geteuid() == 0 && paranoid >= 1)
		RUN_FRESH(as_nobody);
	else
		printf("EPERM rows not run: need root to drop privileges and perf_event_paranoid >= 1 (is %d)\n",
		       paranoid);
	api_init();
	test_attach();
	inherit_row(__LINE__, 1);
	inherit_row(__LINE__, 0);
	if (geteuid() == 0 || paranoid <= 0)
		test_cpu_wide();
	PAPI_shutdown();
	return th_done();
}
