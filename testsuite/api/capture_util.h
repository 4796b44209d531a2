/*
 * capture_util.h - capture what a call writes to stderr (fd 2).
 */
#ifndef TALLY_API_CAPTURE_UTIL_H
#define TALLY_API_CAPTURE_UTIL_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct capture {
	FILE *tmp;
	int saved;
};

static inline void capture_begin(struct capture *c)
{
	fflush(stderr);
	c->tmp = tmpfile();
	c->saved = dup(2);
	if (c->tmp)
		dup2(fileno(c->tmp), 2);
}

/* Restore stderr; copy what was written (NUL-terminated) into out. */
static inline size_t capture_end(struct capture *c, char *out, size_t len)
{
	size_t n = 0;

	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	if (c->tmp) {
		rewind(c->tmp);
		n = fread(out, 1, len - 1, c->tmp);
		fclose(c->tmp);
	}
	out[n] = '\0';
	return n;
}

#endif /* TALLY_API_CAPTURE_UTIL_H */
