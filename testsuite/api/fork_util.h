/*
 * fork_util.h - run a scenario in a child process so that it starts with
 * a library that was never initialised.  The child's failures are printed
 * by the child; the parent records one check per scenario.
 */
#ifndef TALLY_API_FORK_UTIL_H
#define TALLY_API_FORK_UTIL_H

#include <sys/wait.h>
#include <unistd.h>
#include "tharness.h"

#define RUN_FRESH(fn) run_fresh(fn, #fn, __LINE__)

static inline void run_fresh(void (*fn)(void), const char *name, int line)
{
	int status = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		th_failures = 0; /* count only this scenario's failures */
		fn();
		fflush(NULL);
		_exit(th_failures ? 1 : 0);
	}
	th_at(line);
	TH_CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		char m[256];
		snprintf(m, sizeof m, "scenario %s (status 0x%x)", name, status);
		th_fail(__FILE__, line, m);
	}
	th_at(0);
}

#endif /* TALLY_API_FORK_UTIL_H */
