/*
 * hl_test_util.h - ground truth and small helpers for the high-level API
 * tests: page touching, thread CPU time, child processes, and a minimal
 * reader for the region summary JSON (format: src/api/papi_hl_region.c).
 */
#ifndef TALLY_HL_TEST_UTIL_H
#define TALLY_HL_TEST_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tharness.h"

/* Touch n fresh anonymous pages (one minor fault each; huge pages off so
 * one fault cannot map many pages).  The mapping is left in place so the
 * pages are not reused by a later call. */
TH_UNINSTRUMENTED static inline void hlt_touch_pages(long n)
{
	long psz = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(n * psz), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	(void)madvise(p, (size_t)(n * psz), MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		((volatile char *)p)[i * psz] = 1;
}

static inline long long hlt_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Whole file as a NUL-terminated string (NULL when unreadable). */
static inline char *hlt_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (!f)
		return NULL;
	do {
		if (cap - len < 4096) {
			cap = cap ? 2 * cap : 65536;
			buf = realloc(buf, cap + 1);
			if (!buf)
				exit(2);
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* Run fn() in a child whose stderr goes to `err_path`; its exit status, or
 * -1 when it did not exit normally. */
static inline int hlt_run_child(int (*fn)(void), const char *err_path)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
#ifdef TALLY_THARNESS_H
		th_failures = th_checks = 0; /* the child reports only its own */
#endif

		if (fd >= 0)
			dup2(fd, 2);
		exit(fn());
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline int hlt_count(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/*
 * Minimal summary reader.  hlt_region() finds the object of region `name`
 * at or after `from` (within [from, limit) when limit is not NULL) and
 * returns its start; the object ends at the next region or thread.
 * hlt_field() reads the number after "key": inside that object (the first
 * occurrence, so "visits" and "real_time_nsec" come before the events);
 * hlt_event() reads an event's total from its "events" object.
 */
static inline const char *hlt_region(const char *from, const char *limit, const char *name)
{
	char key[256];
	const char *p;

	snprintf(key, sizeof key, "{\"name\": \"%s\"", name);
	p = strstr(from, key);
	return p && (!limit || p < limit) ? p : NULL;
}

static inline const char *hlt_region_end(const char *r)
{
	const char *next = strstr(r + 1, "{\"name\": ");
	const char *thr = strstr(r + 1, "{\"tid\": ");

	if (!next || (thr && thr < next))
		next = thr;
	return next ? next : r + strlen(r);
}

/* Value after `key` within [r, end); -1 (and *ok = 0) when absent or null. */
static inline long long hlt_number_in(const char *r, const char *end, const char *key, int *ok)
{
	char k[256];
	const char *p;

	snprintf(k, sizeof k, "\"%s\": ", key);
	p = strstr(r, k);
	if (!p || p >= end || strncmp(p + strlen(k), "null", 4) == 0) {
		*ok = 0;
		return -1;
	}
	return strtoll(p + strlen(k), NULL, 10);
}

static inline long long hlt_field(const char *r, const char *key, int *ok)
{
	return hlt_number_in(r, hlt_region_end(r), key, ok);
}

static inline long long hlt_event(const char *r, const char *event, int *ok)
{
	const char *ev = strstr(r, "\"events\": {");

	if (!ev || ev >= hlt_region_end(r)) {
		*ok = 0;
		return -1;
	}
	return hlt_number_in(ev, strchr(ev, '}'), event, ok);
}

#endif /* TALLY_HL_TEST_UTIL_H */
