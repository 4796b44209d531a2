/*
 * test_mkdir_mark.c [--planted] - the safe-file service's new private
 * directory (tly_safe_mkdir_at: the staging directory of every job file)
 * is taken only when it is the one its mkdir made, even when what a
 * neighbour moves in under the name between the mkdir and the open is a
 * directory of this same user, 0700, empty and made a moment before (the
 * victims of safety_adopt_swap under load: before the mkdir's mark such a
 * directory, born within the second before the mkdir, was taken as
 * Tally's own and removed when the job ended).
 *   1. nothing swapped: the directory is taken, 0700, the mark cleared;
 *   2. a fresh 0700 directory of this user moved in under the name: -EXDEV,
 *      the directory left as it was (same inode, mode, still there);
 *   3. the same, setgid parent: the same refusal.
 * --planted: the victim is made with the mark (0700 and the sticky bit),
 * as every victim was before the mark (the check then saw nothing to tell
 * it from its own): it is taken, "victim taken", the test fails (ctest
 * safety_mkdir_mark_planted).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tally_shared.h"

static char victim[512], moved[512];
static int swap_now, planted;

/* The kernel's mkdirat, then (when asked) the neighbour's move: the fresh
 * directory out, the victim in under its name. */
int mkdirat(int dfd, const char *name, mode_t mode)
{
	int rc = (int)syscall(SYS_mkdirat, dfd, name, mode);

	if (rc == 0 && swap_now) {
		swap_now = 0;
		if (renameat(dfd, name, AT_FDCWD, moved) == 0)
			(void)renameat(AT_FDCWD, victim, dfd, name);
	}
	return rc;
}

static int one(const char *top, const char *what, int swap, int sgid)
{
	char dir[512], path[600];
	struct stat was, now;
	int dfd, fd, bad = 0;

	snprintf(dir, sizeof dir, "%s/%s", top, what);
	snprintf(victim, sizeof victim, "%s/victim-%s", top, what);
	snprintf(moved, sizeof moved, "%s/moved-%s", top, what);
	if (mkdir(dir, 0755) != 0 || (sgid && chmod(dir, 02755) != 0))
		return printf("FAILED: %s: cannot make %s\n", what, dir), 1;
	if (swap && (mkdir(victim, planted ? 01700 : 0700) != 0 || stat(victim, &was) != 0))
		return printf("FAILED: %s: cannot make the victim\n", what), 1;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY)) < 0)
		return printf("FAILED: %s: cannot open %s\n", what, dir), 1;
	swap_now = swap;
	fd = tly_safe_mkdir_at(dfd, "job.abc123.tmp");
	snprintf(path, sizeof path, "%s/job.abc123.tmp", dir);
	if (!swap) {
		if (fd < 0 || fstat(fd, &now) != 0)
			bad = printf("FAILED: %s: its own directory not taken (%d)\n", what, fd);
		else if ((now.st_mode & 01777) != 0700)
			bad = printf("FAILED: %s: taken with mode %o, want 0700 (the mark cleared)\n", what,
				     (unsigned)(now.st_mode & 07777));
	} else {
		if (fd >= 0)
			bad = printf("FAILED: %s: victim taken (a directory of this user, made %s, moved in)\n", what,
				     planted ? "with the mark" : "a moment before");
		else if (fd != -EXDEV)
			bad = printf("FAILED: %s: refused with %d, want -EXDEV\n", what, fd);
		if (stat(path, &now) != 0 || now.st_ino != was.st_ino || now.st_mode != was.st_mode)
			bad = printf("FAILED: %s: the victim was changed or removed\n", what);
	}
	if (fd >= 0)
		close(fd);
	close(dfd);
	if (!bad)
		printf("%s: %s\n", what, swap ? "the victim refused (-EXDEV), left as it was" : "taken, 0700");
	return bad != 0;
}

static int rm_one(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)f;
	return type == FTW_DP ? rmdir(p) : unlink(p);
}

int main(int argc, char **argv)
{
	char top[] = "/tmp/tally-mkdir-mark-XXXXXX";
	int fail = 0;

	planted = argc > 1 && strcmp(argv[1], "--planted") == 0;
	if (!mkdtemp(top))
		return perror("mkdtemp"), 1;
	fail |= one(top, "plain", 0, 0);
	fail |= one(top, "swapped", 1, 0);
	fail |= one(top, "swapped-sgid", 1, 1);
	if (nftw(top, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "could not remove %s\n", top);
	if (!fail)
		printf("the service takes only the directory its mkdir made\n");
	return fail;
}
