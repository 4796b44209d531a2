/*
 * test_own_dir_swap.c [--planted] - the shared directories Tally makes
 * (a job's `<file>.<id>.parts`, the fallback $TMPDIR/tally-<uid>, the lock
 * directory) are checked on the descriptor opened after the mkdir, never
 * by name (issue 47: rt_exit.c and out_file.c made them with mkdir and
 * checked them with lstat).  This file's mkdirat runs the kernel's and
 * then, like a neighbour who can write the parent, swaps the fresh name
 * between the service's two calls (mkdirat, openat): for a link to her
 * directory, for her own directory, for a directory open to all.  Each
 * time tly_safe_own_dir refuses (-EPERM), nothing is made in her
 * directory, and the directory moved in is unchanged; with nothing
 * swapped the directory is made and taken (made again: the same one).
 *
 * --planted: the same swaps against a service whose check is left out
 * (the directory opened by name, following a link, no fstat): the test
 * must say "swap not caught" and fail (ctest safety_own_dir_swap_planted).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tally_shared.h"

enum swap { NONE, LINK, FOREIGN, OPEN };
static enum swap swap_now;
static char evil[512], moved[512];
static int planted;

/* The kernel's mkdirat, then the neighbour's swap of the name just made. */
int mkdirat(int dfd, const char *name, mode_t mode)
{
	int rc = (int)syscall(SYS_mkdirat, dfd, name, mode);

	if (rc != 0 || swap_now == NONE)
		return rc;
	if (renameat(dfd, name, AT_FDCWD, moved) != 0)
		return rc;
	if (swap_now == LINK)
		(void)symlinkat(evil, dfd, name);
	else
		(void)renameat(AT_FDCWD, evil, dfd, name);   /* her directory, or one open to all */
	return rc;
}

/* The planted fault: made, then opened by name following a link, with
 * no check of what was opened. */
static int own_dir_unchecked(const char *path)
{
	if (mkdirat(AT_FDCWD, path, 0700) != 0 && errno != EEXIST)
		return -errno;
	return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* What a caller of the service does with the directory: a file in it. */
static int use(int fd)
{
	int f = openat(fd, "piece.h5", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (f >= 0)
		close(f);
	return f >= 0;
}

static int one(const char *top, const char *what, enum swap how)
{
	char path[512], probe[600];
	struct stat st;
	int fd, bad = 0;

	snprintf(path, sizeof path, "%s/job.s1-w2.parts", top);
	snprintf(moved, sizeof moved, "%s/.moved-%d", top, (int)how);
	snprintf(evil, sizeof evil, "%s/evil-%d", top, (int)how);
	if (how != NONE && mkdir(evil, how == OPEN ? 0777 : 0700) != 0)
		return printf("FAILED: %s: cannot make %s\n", what, evil), 1;
	if (how == OPEN)
		chmod(evil, 0777);
	if (how == FOREIGN && chown(evil, 65534, 65534) != 0) {
		printf("%s: not root, another owner cannot be made: left out\n", what);
		rmdir(evil);
		return 0;
	}
	swap_now = how;
	fd = planted ? own_dir_unchecked(path) : tly_safe_own_dir(path, 022);
	swap_now = NONE;
	if (how == NONE) {
		bad = fd < 0 || !use(fd);
		printf("%s: %s\n", what, bad ? "FAILED: the directory was not made and taken" : "made and taken");
		if (fd >= 0)
			close(fd);
		fd = tly_safe_own_dir(path, 022);   /* a second process of the job: the same directory */
		bad |= fd < 0 || fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode);
		if (fd >= 0)
			close(fd);
		return bad;
	}
	if (fd >= 0) {
		use(fd);
		close(fd);
	}
	snprintf(probe, sizeof probe, "%s/piece.h5", how == LINK ? evil : path);
	if (fd != -EPERM || access(probe, F_OK) == 0) {
		printf("FAILED: %s: swap not caught (got %d%s)\n", what, fd,
		       access(probe, F_OK) == 0 ? ", a file made in the directory swapped in" : "");
		bad = 1;
	} else {
		printf("%s: refused (-EPERM), nothing made there\n", what);
	}
	return bad;
}

/* The name empty again for the next swap: what is there, and what was moved away. */
static void clear(const char *top)
{
	char cmd[600];

	snprintf(cmd, sizeof cmd, "rm -rf '%s/job.s1-w2.parts' '%s'/.moved-*", top, top);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot clear %s\n", top);
}

int main(int argc, char **argv)
{
	char top[] = "/tmp/own-dir-swap-XXXXXX";
	char cmd[600];
	int bad = 0;

	planted = argc > 1 && !strcmp(argv[1], "--planted");
	if (!mkdtemp(top))
		return perror("mkdtemp"), 1;
	chmod(top, 0755);
	bad |= one(top, "nothing swapped", NONE);
	clear(top);
	bad |= one(top, "a link to her directory", LINK);
	clear(top);
	bad |= one(top, "her own directory", FOREIGN);
	clear(top);
	bad |= one(top, "a directory open to all (0777)", OPEN);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", top);
	printf("%s\n", bad ? "FAILED" : "all swaps of a shared directory were caught on its descriptor");
	return bad;
}
