/*
 * test_private_dir_swap.c [--planted] - the private directory of Tally's
 * caches (the CUDA metric catalog and counter availability images:
 * $XDG_CACHE_HOME/tally, ~/.cache/tally, $TMPDIR/tally-<uid>/cache) is
 * made and checked on its descriptor and its files made through that
 * descriptor (issue 47: tly_safe_private_dir made it with mkdir, checked
 * it with lstat and the files went in by name).  A neighbour who can
 * write the parent:
 *   - swaps the fresh name between the service's mkdirat and its open (a
 *     link to her directory, her own directory, a directory open to all);
 *   - plants her directory, or one open to all, under the name before;
 *   - swaps the checked directory's name for a link to her directory
 *     after the check, before the cache file is written.
 * Each time nothing is written in her directory, nothing of hers is
 * adopted or changed (owner and mode as she left them), the swaps before
 * the check are refused (-EPERM) and the file written after the late
 * swap lands in the directory that was checked.  With nothing swapped the
 * directory and its missing parent are made 0700, and a file written
 * there is read back.
 *
 * --planted: the service as it was (mkdir, lstat, then the file by name):
 * the late swap puts the file in her directory: "swap not caught", it
 * fails (ctest safety_private_dir_swap_planted).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "services/safe_file.h"

enum swap { NONE, LINK, FOREIGN, OPEN };
static enum swap swap_now;
static char evil[512], moved[512], her[512];   /* her directory made, the checked one moved, hers now */
static int planted, swapped;

/* Her move: the name now holds a link to her directory, or her directory. */
static void swap_name(int dfd, const char *name, enum swap how)
{
	if (renameat(dfd, name, AT_FDCWD, moved) != 0)
		return;
	swapped = 1;
	if (how == LINK)
		(void)symlinkat(evil, dfd, name);
	else
		(void)renameat(AT_FDCWD, evil, dfd, name);
}

/* The kernel's mkdirat, then (when asked) her swap of the name just made. */
int mkdirat(int dfd, const char *name, mode_t mode)
{
	int rc = (int)syscall(SYS_mkdirat, dfd, name, mode);

	if (rc == 0 && swap_now != NONE) {
		swap_name(dfd, name, swap_now);
		swap_now = NONE;
	}
	return rc;
}

/* The planted fault: the service of before, by name (mkdir, lstat). */
static int old_private_dir(const char *dir)
{
	struct stat st;

	if (mkdirat(AT_FDCWD, dir, 0700) != 0 && errno != EEXIST)
		return -errno;
	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022))
		return -EPERM;
	return AT_FDCWD;   /* the files then go in by name */
}

/* A cache file written as the CUDA cache writes it: 1 when written. */
static int write_cache(int dfd, const char *dir)
{
	char path[700], tmp[800];
	FILE *f;

	if (dfd == AT_FDCWD) {
		snprintf(path, sizeof path, "%s/catalog", dir);
		f = tly_safe_create(path, tmp, sizeof tmp);
		return f && tly_safe_commit(f, tmp, path, fputs("cache\n", f) >= 0) == 0;
	}
	f = tly_safe_create_at(dfd, "catalog", tmp, sizeof tmp);
	return f && tly_safe_commit_at(f, dfd, tmp, "catalog", fputs("cache\n", f) >= 0) == 0;
}

static int make_evil(enum swap how, struct stat *was)
{
	if (mkdir(evil, 0700) != 0)
		return -1;
	if (how == OPEN && chmod(evil, 0777) != 0)
		return -1;
	if (how == FOREIGN && chown(evil, 65534, 65534) != 0)
		return -2;
	return stat(evil, was);
}

/* Her directory as she left it: empty, same owner and mode. */
static int evil_untouched(const struct stat *was, char *why, size_t len)
{
	char probe[600];
	struct stat now;

	snprintf(probe, sizeof probe, "%s/catalog", her);
	if (access(probe, F_OK) == 0)
		return snprintf(why, len, "the cache file was written in her directory"), 0;
	if (stat(her, &now) != 0)
		return snprintf(why, len, "her directory is gone"), 0;
	if (now.st_uid != was->st_uid || now.st_mode != was->st_mode)
		return snprintf(why, len, "her directory was changed (mode %o -> %o, owner %d -> %d)",
				(unsigned)(was->st_mode & 07777), (unsigned)(now.st_mode & 07777), (int)was->st_uid,
				(int)now.st_uid), 0;
	return 1;
}

/* when: 0 swapped at the mkdir, 1 planted before, 2 swapped after the check */
static int one(const char *top, const char *what, enum swap how, int when)
{
	char dir[512], parent[512], why[200] = "";
	struct stat was;
	int fd, pfd, wrote, bad = 0;

	snprintf(parent, sizeof parent, "%s/cache", top);
	snprintf(dir, sizeof dir, "%s/tally", parent);
	snprintf(moved, sizeof moved, "%s/.moved", top);
	snprintf(evil, sizeof evil, "%s/evil", top);
	if (mkdir(parent, 0700) != 0)
		return printf("FAILED: %s: cannot make %s\n", what, parent), 1;
	if ((fd = make_evil(how, &was)) == -2) {
		printf("%s: not root, another owner cannot be made: left out\n", what);
		return 0;
	}
	if (fd != 0)
		return printf("FAILED: %s: cannot make %s\n", what, evil), 1;
	swapped = 0;
	if (when == 1 && rename(evil, dir) != 0)
		return printf("FAILED: %s: cannot plant %s\n", what, dir), 1;
	swap_now = when == 0 ? how : NONE;
	fd = planted ? old_private_dir(dir) : tly_safe_private_dir(dir);
	swap_now = NONE;
	if (when == 2 && (fd >= 0 || fd == AT_FDCWD)) {
		pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		swap_name(pfd, "tally", how);
		close(pfd);
	}
	if (when != 1 && !swapped)
		return printf("FAILED: %s: the swap was not made\n", what), 1;
	snprintf(her, sizeof her, "%s", how == LINK ? evil : dir);
	wrote = fd >= 0 || fd == AT_FDCWD ? write_cache(fd, dir) : 0;
	if (fd >= 0)
		close(fd);
	if (!evil_untouched(&was, why, sizeof why)) {
		bad = 1;
	} else if (when != 2 && fd != -EPERM) {
		snprintf(why, sizeof why, "taken (%d), not refused", fd);
		bad = 1;
	} else if (when == 2 && (!wrote || access(strcat(strcpy(why, moved), "/catalog"), F_OK) != 0)) {
		snprintf(why, sizeof why, "the file was not written in the directory checked");
		bad = 1;
	}
	if (bad)
		printf("FAILED: %s: swap not caught: %s\n", what, why);
	else
		printf("%s: %s, her directory untouched\n", what,
		       when == 2 ? "the file went into the directory checked" : "refused (-EPERM)");
	return bad;
}

static void clear(const char *top)
{
	char cmd[600];

	snprintf(cmd, sizeof cmd, "rm -rf '%s/cache' '%s/.moved' '%s/evil'", top, top, top);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot clear %s\n", top);
}

/* Nothing swapped: the directory and its missing parent made 0700, a
 * file written and read back, made again: the same directory. */
static int plain(const char *top)
{
	char dir[512], parent[512], line[16] = "";
	struct stat st, par;
	FILE *f = NULL;
	int fd, bad;

	snprintf(parent, sizeof parent, "%s/cache", top);
	snprintf(dir, sizeof dir, "%s/tally", parent);
	fd = tly_safe_private_dir(dir);
	bad = fd < 0 || !write_cache(fd, dir) || stat(dir, &st) != 0 || (st.st_mode & 07777) != 0700;
	bad |= stat(parent, &par) != 0 || (par.st_mode & 07777) != 0700;
	if (!bad)
		bad = !(f = tly_safe_open_own_at(fd, "catalog")) || !fgets(line, sizeof line, f) || strcmp(line, "cache\n");
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	fd = tly_safe_private_dir(dir);
	bad |= fd < 0;
	if (fd >= 0)
		close(fd);
	printf("nothing swapped: %s\n", bad ? "FAILED: the directory was not made, written and read" :
	       "made 0700 with its parent, written, read back, taken again");
	return bad;
}

int main(int argc, char **argv)
{
	static const struct { const char *what; enum swap how; int when; } cases[] = {
		{ "at the mkdir: a link to her directory", LINK, 0 },
		{ "at the mkdir: her own directory", FOREIGN, 0 },
		{ "at the mkdir: a directory open to all (0777)", OPEN, 0 },
		{ "planted before: her own directory", FOREIGN, 1 },
		{ "planted before: a directory open to all (0777)", OPEN, 1 },
		{ "after the check: a link to her directory", LINK, 2 },
		{ "after the check: her own directory", FOREIGN, 2 },
	};
	char top[] = "/tmp/private-dir-swap-XXXXXX";
	char cmd[600];
	int bad = 0;

	planted = argc > 1 && !strcmp(argv[1], "--planted");
	umask(022);
	if (!mkdtemp(top))
		return perror("mkdtemp"), 1;
	chmod(top, 0755);
	if (!planted)
		bad |= plain(top);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		clear(top);
		bad |= one(top, cases[i].what, cases[i].how, cases[i].when);
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", top);
	printf("%s\n", bad ? "FAILED" : "every swap of the private directory was caught on its descriptor");
	return bad;
}
