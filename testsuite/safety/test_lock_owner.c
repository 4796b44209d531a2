/*
 * test_lock_owner.c - who holds a lock file is asked of the kernel, not
 * read from the file (issue 50: "GPU ... is profiled by rank 0 (pid
 * 1499)" named the previous job's owner, whose "pid rank" line stays in
 * the file until the next owner overwrites it).  Two jobs in a row on
 * one lock: the first child claims, writes its line and exits; the second
 * claims and holds the lock without writing yet (the window the stale
 * line was read in); tly_lock_holder names the second, live, holder, not
 * the pid in the file; with no holder, 0.  The file's stale pid is this
 * test's own (alive), so a check "is the pid in the file alive" would
 * not tell them apart either.  No GPU needed.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tharness.h"
#include "th_file.h"
#include "tally_shared.h"

static char base[64];

/* A child that takes the lock, optionally writes "pid rank", tells the
 * parent through `ready` and waits to be killed (or exits when `leave`). */
static pid_t holder(int write_line, int leave)
{
	int p[2];
	pid_t pid;
	char c = 'x';

	TH_EQ(pipe(p), 0);
	pid = fork();
	TH_CHECK(pid >= 0);
	if (pid == 0) {
		long other = 0;
		int fd = tly_private_lock_open("gpu-TEST.lock", &other);
		char line[48];

		if (fd < 0 || flock(fd, LOCK_EX) != 0)
			_exit(2);
		if (write_line) {
			snprintf(line, sizeof line, "%-20ld %-11d\n", (long)getpid(), 0);
			if (pwrite(fd, line, strlen(line), 0) < 0)
				_exit(3);
		}
		if (write(p[1], &c, 1) != 1)
			_exit(4);
		if (leave)
			_exit(0);
		for (;;)
			pause();
	}
	close(p[1]);
	TH_EQ(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

int main(void)
{
	long other = 0, stale = 0;
	int st = 0, fd;
	pid_t first, second;
	char line[64] = "";

	snprintf(base, sizeof base, "/tmp/tally-owner-XXXXXX");
	TH_CHECK(mkdtemp(base) != NULL);
	setenv("TMPDIR", base, 1);
	fd = tly_private_lock_open("gpu-TEST.lock", &other);
	TH_CHECK(fd >= 0);
	TH_EQ(tly_lock_holder(fd), 0);   /* nobody holds it yet */

	/* job 1: claims, writes its line, ends (the kernel drops the lock) */
	first = holder(1, 1);
	TH_EQ(waitpid(first, &st, 0), first);
	TH_EQ(tly_lock_holder(fd), 0);
	/* the line it left, rewritten with this process's (alive) pid: stale */
	snprintf(line, sizeof line, "%-20ld %-11d\n", (long)getpid(), 0);
	TH_EQ(pwrite(fd, line, strlen(line), 0), (ssize_t)strlen(line));

	/* job 2: holds the lock and has not written yet */
	second = holder(0, 0);
	TH_CHECK(pread(fd, line, sizeof line - 1, 0) > 0);
	stale = strtol(line, NULL, 10);
	TH_EQ(stale, (long)getpid());                 /* the file still names the last owner */
	TH_EQ(tly_lock_holder(fd), (long)second);     /* the kernel names the live one */
	TH_CHECK(flock(fd, LOCK_EX | LOCK_NB) != 0);  /* and it is held */
	kill(second, SIGKILL);
	TH_EQ(waitpid(second, &st, 0), second);
	TH_EQ(tly_lock_holder(fd), 0);
	close(fd);
	th_rm_tree(base);
	return th_done();
}
