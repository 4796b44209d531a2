#include "core/procfs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "papi.h"

long tly_read_text(const char *path, char *buf, size_t len)
{
	size_t got = 0;
	int fd;

	if (!path || !buf || len == 0)
		return PAPI_EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? PAPI_ENOSUPP : PAPI_ESYS;
	/* /proc files come in page-sized pieces: read until EOF or full. */
	while (got + 1 < len) {
		ssize_t n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return (long)got;
}

int tly_read_line(const char *path, char *buf, size_t len)
{
	long n = tly_read_text(path, buf, len);

	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	return PAPI_OK;
}

long long tly_read_ll(const char *path, long long dflt)
{
	char buf[64], *end;
	long long v;

	if (tly_read_line(path, buf, sizeof buf) != PAPI_OK)
		return dflt;
	errno = 0;
	v = strtoll(buf, &end, 0);
	if (errno || end == buf)
		return dflt;
	return v;
}

/* Copy [b, e) into out with blanks trimmed at both ends. */
static void copy_trimmed(const char *b, const char *e, char *out, size_t len)
{
	size_t n;

	while (b < e && isspace((unsigned char)*b))
		b++;
	while (e > b && isspace((unsigned char)e[-1]))
		e--;
	n = (size_t)(e - b);
	if (n >= len)
		n = len - 1;
	memcpy(out, b, n);
	out[n] = '\0';
}

int tly_kv_find(const char *text, const char *key, char *out, size_t len)
{
	size_t klen;
	const char *line;

	if (!text || !key || !out || len == 0)
		return PAPI_EINVAL;
	klen = strlen(key);
	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *p = line + klen;
		const char *eol;

		if (strncmp(line, key, klen) != 0)
			continue;
		/* "cpu MHz" must not match "cpu MHz dynamic": only blanks may follow the key. */
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != ':')
			continue;
		eol = strchr(p, '\n');
		copy_trimmed(p + 1, eol ? eol : p + strlen(p), out, len);
		return PAPI_OK;
	}
	return PAPI_ENOEVNT;
}

int tly_cpulist_count(const char *list)
{
	const char *p = list;
	int count = 0;

	if (!list)
		return -1;
	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b;

		if (end == p || a < 0)
			return -1;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				return -1;
			p = end;
		}
		count += (int)(b - a + 1);
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	return count;
}

long long tly_parse_size(const char *text)
{
	char *end;
	long long v;

	if (!text)
		return -1;
	errno = 0;
	v = strtoll(text, &end, 10);
	if (errno || end == text || v < 0)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'K': v <<= 10; end++; break;
	case 'M': v <<= 20; end++; break;
	case 'G': v <<= 30; end++; break;
	default: break;
	}
	while (isspace((unsigned char)*end))
		end++;
	return *end ? -1 : v;
}
