/*
 * slow_write.c - LD_PRELOAD for run_exit_unfinished.sh: every write to a
 * file of a private directory of Tally's (a path holding ".tmp/", the
 * file being written before it goes into place) first sleeps 3 s, so the
 * exit deadline (TALLY_EXIT_TIMEOUT=1) passes during the write, every
 * time.  Other writes (stderr, stdout) are left alone.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
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
	if (strstr(path, ".tmp/"))
		nanosleep(&t, NULL);
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
