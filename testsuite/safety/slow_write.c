/*
 * slow_write.c - LD_PRELOAD for run_exit_unfinished.sh: every write to a
 * file of a private directory of Tally's (a path holding ".tmp/", the
 * file being written before it goes into place) first sleeps 3 s, so the
 * exit deadline (TALLY_EXIT_TIMEOUT=1) passes during the write, every
 * time.  Other writes (stderr, stdout) are left alone.
 *
 * SLOW_RENAME=1: the writes run at full speed; instead the rename of the
 * complete file out of its private directory (renameat2/renameat from a
 * `.tmp` directory) waits until SIGALRM, the exit() watchdog's signal, is
 * pending on this thread (20 s at most), then renames: the deadline falls
 * between the mark "publishing" and the rename, every time.  Where the
 * writer leaves SIGALRM open there, the handler runs inside this wait
 * (issue 47: it waited 2 s for a rename that could not end, said nothing
 * and left the `.tmp`).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static void slow_if_staged(int fd)
{
	char via[64], path[4096];
	struct timespec t = { 3, 0 };
	ssize_t n;

	snprintf(via, sizeof via, "/proc/self/fd/%d", fd);
	n = readlink(via, path, sizeof path - 1);
	if (n <= 0)
		return;
	path[n] = '\0';
	if (strstr(path, ".tmp/") && !getenv("SLOW_RENAME"))
		nanosleep(&t, NULL);
}

/* A rename from a private directory of Tally's waits for SIGALRM. */
static void hold_rename(int fromfd, const char *from)
{
	char via[64], path[4096];
	struct timespec t = { 0, 10000000 };
	sigset_t pend;
	ssize_t n;

	if (!getenv("SLOW_RENAME") || fromfd == AT_FDCWD || strchr(from, '/'))
		return;
	snprintf(via, sizeof via, "/proc/self/fd/%d", fromfd);
	n = readlink(via, path, sizeof path - 1);
	if (n <= 4)
		return;
	path[n] = '\0';
	if (strcmp(path + n - 4, ".tmp") != 0)
		return;
	for (int i = 0; i < 2000; i++) {
		sigpending(&pend);
		if (sigismember(&pend, SIGALRM))
			return;
		nanosleep(&t, NULL);
	}
}

__attribute__((visibility("default"))) int renameat2(int fromfd, const char *from, int tofd, const char *to,
						     unsigned int flags)
{
	static int (*real)(int, const char *, int, const char *, unsigned int);

	if (!real)
		real = (int (*)(int, const char *, int, const char *, unsigned int))dlsym(RTLD_NEXT, "renameat2");
	hold_rename(fromfd, from);
	return real(fromfd, from, tofd, to, flags);
}

__attribute__((visibility("default"))) int renameat(int fromfd, const char *from, int tofd, const char *to)
{
	static int (*real)(int, const char *, int, const char *);

	if (!real)
		real = (int (*)(int, const char *, int, const char *))dlsym(RTLD_NEXT, "renameat");
	hold_rename(fromfd, from);
	return real(fromfd, from, tofd, to);
}

__attribute__((visibility("default"))) ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	static ssize_t (*real)(int, const void *, size_t, off_t);

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t, off_t))dlsym(RTLD_NEXT, "pwrite");
	slow_if_staged(fd);
	return real(fd, buf, n, off);
}

__attribute__((visibility("default"))) ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return pwrite(fd, buf, n, off);
}

__attribute__((visibility("default"))) ssize_t write(int fd, const void *buf, size_t n)
{
	static ssize_t (*real)(int, const void *, size_t);

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (fd > 2)
		slow_if_staged(fd);
	return real(fd, buf, n);
}
