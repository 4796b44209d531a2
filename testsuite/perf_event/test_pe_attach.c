/*
 * test_pe_attach.c - counting another process: a forked child touches N
 * pages; the count attached to it (opts.attach_tid) must match N and the
 * child's minflt in /proc/<pid>/stat.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "pe_test.h"

#define N 3000

static long proc_minflt(pid_t pid)
{
	char path[64], buf[4096], *p;
	long v = -1;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return -1;
	if (fgets(buf, sizeof buf, f) && (p = strrchr(buf, ')')))
		/* after "pid (comm)": state ppid pgrp session tty tpgid flags minflt */
		if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %ld", &v) != 1)
			v = -1;
	fclose(f);
	return v;
}

static void child(int go, int done)
{
	char c;
	char *p = fresh_pages(N);

	if (read(go, &c, 1) != 1 || !p)
		_exit(1);
	touch_pages(p, N);
	if (write(done, "d", 1) != 1)
		_exit(1);
	if (read(go, &c, 1) != 1)
		_exit(1);
	_exit(0);
}

int main(void)
{
	PAPI_component_info_t info;
	struct tly_ctl_opts o = pe_test_opts(PAPI_DOM_USER);
	const char *names[] = { "perf::PAGE-FAULTS", "perf::TASK-CLOCK" };
	int go[2], done[2], rc, st;
	long long v[2];
	long before, after;
	char c;
	pid_t pid;
	void *ctl;

	pe_test_init(&info);
	if (pipe(go) || pipe(done))
		TH_FATAL("pipe failed");
	pid = fork();
	if (pid == 0)
		child(go[0], done[1]);
	o.attach_tid = pid;
	ctl = pe_test_ctl(&o, names, 2, &rc);
	TH_EQ(rc, PAPI_OK);
	if (ctl) {
		TH_EQ(pe->ctl_start(ctl), PAPI_OK);
		before = proc_minflt(pid);
		TH_EQ(write(go[1], "g", 1), 1);
		TH_EQ(read(done[0], &c, 1), 1);
		after = proc_minflt(pid);
		TH_EQ(pe->ctl_stop(ctl), PAPI_OK);
		TH_EQ(pe->ctl_read(ctl, v), PAPI_OK);
		printf("child faults: counted %lld, touched %d, /proc minflt delta %ld; child task-clock %lld ns\n",
		       v[0], N, after - before, v[1]);
		TH_NEAR(v[0], N, 0.02);
		TH_NEAR(v[0], after - before, 0.02);
		TH_CHECK(v[1] > 0);
		pe_test_ctl_free(ctl);
	}
	TH_EQ(write(go[1], "x", 1), 1);
	waitpid(pid, &st, 0);
	TH_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* a thread that does not exist */
	o.attach_tid = 0x7ffffff0;
	ctl = pe_test_ctl(&o, names, 1, &rc);
	TH_EQ(rc, PAPI_EINVAL);
	TH_CHECK(ctl == NULL);
	pe->shutdown();
	return th_done();
}
