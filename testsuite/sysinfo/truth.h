/*
 * truth.h - ground-truth readers for the sysinfo tests, written apart
 * from the library's own parsers so the tests check it independently.
 * They avoid malloc so reading them does not move the numbers they read.
 */
#ifndef TALLY_TEST_SYSINFO_TRUTH_H
#define TALLY_TEST_SYSINFO_TRUTH_H

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whole file into buf (NUL-terminated); -1 when it cannot be opened. */
static inline long truth_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	long got = 0, n;

	if (fd < 0)
		return -1;
	while (got < (long)len - 1 && (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	close(fd);
	buf[got] = '\0';
	return got;
}

/* Integer content of a /sys file; dflt when absent. */
static inline long long truth_ll(const char *path, long long dflt)
{
	char buf[64];

	if (truth_read(path, buf, sizeof buf) <= 0)
		return dflt;
	return strtoll(buf, NULL, 0);
}

/* Pointer to the value after "key:" on a line starting with key, or NULL. */
static inline const char *truth_field(const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (strncmp(p, key, n) == 0) {
			const char *c = p + n;

			/* Only blanks may separate the key from its colon. */
			while (*c == ' ' || *c == '\t')
				c++;
			if (*c == ':') {
				c++;
				while (*c == ' ' || *c == '\t')
					c++;
				return c;
			}
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return NULL;
}

/* Value of the field up to the end of its line, trailing blanks cut. */
static inline void truth_field_str(const char *text, const char *key, char *out, size_t len)
{
	const char *v = truth_field(text, key);
	size_t n = 0;

	out[0] = '\0';
	if (!v)
		return;
	while (v[n] && v[n] != '\n' && n + 1 < len)
		n++;
	while (n > 0 && (v[n - 1] == ' ' || v[n - 1] == '\t'))
		n--;
	memcpy(out, v, n);
	out[n] = '\0';
}

/* A /proc/self/status field in kB; -1 when absent. */
static inline long long truth_status_kb(const char *key)
{
	char buf[16384];
	const char *v;

	if (truth_read("/proc/self/status", buf, sizeof buf) <= 0)
		return -1;
	v = truth_field(buf, key);
	return v ? strtoll(v, NULL, 10) : -1;
}

#endif /* TALLY_TEST_SYSINFO_TRUTH_H */
