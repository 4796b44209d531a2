/*
 * test_attach.c - PAPI_attach / PAPI_detach (and PAPI_ATTACH, PAPI_DETACH
 * through PAPI_set_opt / PAPI_get_opt): argument and state errors, and an
 * attached set counting a child's page faults (N fresh pages, within 2%)
 * and not the caller's.
 */
#include <sys/wait.h>
#include "api_util.h"

#define NPAGES 2000

static void test_attach_errors(void)
{
	int es = PAPI_NULL;
	long long v[1];

	TH_EQ(PAPI_attach(987654, (unsigned long)getpid()), PAPI_ENOEVST);
	TH_EQ(PAPI_detach(987654), PAPI_ENOEVST);
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es, API_TASK_CLOCK), PAPI_OK);
	/* not attached: nothing to detach */
	TH_EQ(PAPI_detach(es), PAPI_EINVAL);
	TH_EQ(PAPI_start(es), PAPI_OK);
	TH_EQ(PAPI_attach(es, (unsigned long)getpid()), PAPI_EISRUN);
	TH_EQ(PAPI_stop(es, v), PAPI_OK);
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
}

static void test_attach_child(void)
{
	int go[2], done[2], es = PAPI_NULL, st = 0;
	long long v = -1, v2 = -1;
	char c = 0;
	PAPI_option_t o;

	TH_EQ(pipe(go), 0);
	TH_EQ(pipe(done), 0);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		touch_fresh_pages(NPAGES);
		if (write(done[1], &c, 1) != 1)
			_exit(3);
		if (read(go[0], &c, 1) != 1) /* wait until measured */
			_exit(4);
		_exit(0);
	}
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_named_event(es, API_PAGE_FAULTS), PAPI_OK);
	TH_EQ(PAPI_attach(es, (unsigned long)pid), PAPI_OK);
	TH_EQ(PAPI_state(es, &st), PAPI_OK);
	TH_CHECK(st & PAPI_ATTACHED);
	/* attached already */
	TH_EQ(PAPI_attach(es, (unsigned long)pid), PAPI_EINVAL);
	memset(&o, 0, sizeof o);
	o.attach.eventset = es;
	TH_CHECK(PAPI_get_opt(PAPI_ATTACH, &o) >= 0);
	TH_EQ(o.attach.tid, (unsigned long)pid);

	TH_EQ(PAPI_start(es), PAPI_OK);
	touch_fresh_pages(NPAGES); /* ours: must not be counted */
	TH_EQ(PAPI_read(es, &v), PAPI_OK);
	TH_CHECK(v >= 0 && v < NPAGES / 50);
	TH_EQ(write(go[1], &c, 1), 1);
	TH_EQ(read(done[0], &c, 1), 1);
	TH_EQ(PAPI_read(es, &v), PAPI_OK);
	TH_NEAR(v, NPAGES, 0.02);
	TH_EQ(PAPI_stop(es, &v2), PAPI_OK);
	TH_NEAR(v2, NPAGES, 0.02);
	TH_EQ(write(go[1], &c, 1), 1); /* let the child end */
	int status = 0;
	waitpid(pid, &status, 0);
	TH_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	TH_EQ(PAPI_detach(es), PAPI_OK);
	TH_EQ(PAPI_state(es, &st), PAPI_OK);
	TH_CHECK(!(st & PAPI_ATTACHED));
	TH_EQ(PAPI_detach(es), PAPI_EINVAL);
	/* detached: the set counts the caller again */
	TH_EQ(PAPI_start(es), PAPI_OK);
	touch_fresh_pages(NPAGES);
	TH_EQ(PAPI_stop(es, &v), PAPI_OK);
	TH_NEAR(v, NPAGES, 0.02);

	/* the same through PAPI_set_opt */
	memset(&o, 0, sizeof o);
	o.attach.eventset = es;
	o.attach.tid = (unsigned long)getpid();
	TH_EQ(PAPI_set_opt(PAPI_ATTACH, &o), PAPI_OK);
	TH_EQ(PAPI_state(es, &st), PAPI_OK);
	TH_CHECK(st & PAPI_ATTACHED);
	memset(&o, 0, sizeof o);
	o.attach.eventset = es;
	TH_EQ(PAPI_set_opt(PAPI_DETACH, &o), PAPI_OK);
	TH_EQ(PAPI_state(es, &st), PAPI_OK);
	TH_CHECK(!(st & PAPI_ATTACHED));
	TH_EQ(PAPI_cleanup_eventset(es), PAPI_OK);
	TH_EQ(PAPI_destroy_eventset(&es), PAPI_OK);
	close(go[0]); close(go[1]); close(done[0]); close(done[1]);
}

int main(void)
{
	api_init();
	test_attach_errors();
	test_attach_child();
	PAPI_shutdown();
	return th_done();
}
