/*
 * python.c - the Python interpreter tally-run runs its scripts with (the
 * pass merge): TALLY_PYTHON when set, else the first python3 on PATH (a
 * virtual environment's, with h5py), else the Python configured at build
 * time (TALLY_REPORT_PYTHON).  Never a fixed path.
 */
#include "replay.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *tly_python(void)
{
	static char found[PATH_MAX];
	const char *v = getenv("TALLY_PYTHON"), *path = getenv("PATH");

	if (v && *v)
		return v;
	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");

		if (n && n + sizeof "/python3" < sizeof found) {
			snprintf(found, sizeof found, "%.*s/python3", (int)n, p);
			if (access(found, X_OK) == 0)
				return found;
		}
		p += n + (p[n] == ':');
	}
	return TALLY_CONFIGURED_PYTHON;
}
