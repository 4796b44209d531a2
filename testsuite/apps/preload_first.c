/* preload_first.c - exec a program with libraries put in front of LD_PRELOAD.
 *
 * Usage: preload_first "LIB [LIB...]" PROGRAM [ARGS...]
 * tally-run puts libtally-preload.so first in LD_PRELOAD; the apps tests
 * need their MPI counters in front of it (so both see the same calls), and
 * this runs between tally-run and the application.  It is linked
 * statically so that no preloaded library is loaded into it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *old = getenv("LD_PRELOAD");
	char *v;
	size_t n;

	if (argc < 3) {
		fprintf(stderr, "usage: preload_first \"LIB...\" PROGRAM [ARGS...]\n");
		return 2;
	}
	n = strlen(argv[1]) + (old ? strlen(old) : 0) + 2;
	v = malloc(n);
	if (!v)
		return 1;
	snprintf(v, n, "%s%s%s", argv[1], old && *old ? " " : "", old ? old : "");
	setenv("LD_PRELOAD", v, 1);
	execvp(argv[2], argv + 2);
	fprintf(stderr, "preload_first: cannot run %s: %s\n", argv[2], strerror(errno));
	return 127;
}
