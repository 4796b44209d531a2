/*
 * util_run.h - run a utility under test and capture its output.
 *
 *   struct ut_out o;
 *   ut_run(&o, UT_MERGE, "%s -a", path);   stdout (+ stderr with UT_MERGE)
 *   o.text, o.status (exit status, -1 when it did not exit normally)
 *   ut_line(&cursor, buf, size)            walk the output line by line
 *   ut_free(&o);
 */
#ifndef TALLY_TEST_UTIL_RUN_H
#define TALLY_TEST_UTIL_RUN_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

enum { UT_STDOUT = 0, UT_MERGE = 1 };

struct ut_out {
	char *text;
	size_t len;
	int status;
};

static inline int ut_run(struct ut_out *o, int merge, const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	size_t cap = 8192, n;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd) - 8, fmt, ap);
	va_end(ap);
	strcat(cmd, merge ? " 2>&1" : " 2>/dev/null");
	o->text = malloc(cap);
	o->len = 0;
	o->status = -1;
	p = popen(cmd, "r");
	if (!p || !o->text)
		return -1;
	while ((n = fread(o->text + o->len, 1, cap - o->len - 1, p)) > 0) {
		o->len += n;
		if (cap - o->len < 1024) {
			cap *= 2;
			o->text = realloc(o->text, cap);
			if (!o->text)
				return -1;
		}
	}
	o->text[o->len] = '\0';
	st = pclose(p);
	if (st != -1 && WIFEXITED(st))
		o->status = WEXITSTATUS(st);
	printf("$ %s -> exit %d\n", cmd, o->status);
	return 0;
}

/* Copy the next line (without '\n') into buf; 0 at the end of the text. */
static inline int ut_line(const char **cur, char *buf, size_t size)
{
	const char *nl;
	size_t len;

	if (!*cur || **cur == '\0')
		return 0;
	nl = strchr(*cur, '\n');
	len = nl ? (size_t)(nl - *cur) : strlen(*cur);
	if (len >= size)
		len = size - 1;
	memcpy(buf, *cur, len);
	buf[len] = '\0';
	*cur = nl ? nl + 1 : *cur + strlen(*cur);
	return 1;
}

static inline void ut_free(struct ut_out *o)
{
	free(o->text);
	o->text = NULL;
}

/* Print the captured text when a check on it failed. */
static inline void ut_dump(const struct ut_out *o)
{
	fprintf(stderr, "----- output -----\n%s\n------------------\n", o->text ? o->text : "");
}

#endif /* TALLY_TEST_UTIL_RUN_H */
