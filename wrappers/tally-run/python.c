/*
 * python.c - the Python interpreter tally-run runs tally-report's commands
 * with (the pass merge, --summary): TALLY_PYTHON when set; else the first
 * of the Python the build was configured with for tally-report
 * (TALLY_REPORT_PYTHON, also tally-report's #! line), the one CMake found
 * and python3 of the first PATH entry that only root or this user can
 * write (absolute; never ".", "" or a relative one) that has h5py; else
 * the first of them that exists, else the configured one.  The probes run without the preload.  The tally
 * package is at <tally-run's directory>/../share/tally/python, installed
 * and in the build tree.
 */
#include "python.h"
#include "spawn.h"
#include "tally_shared.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Owned by root or this user and writable by nobody else. */
static int trusted(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && (st.st_uid == 0 || st.st_uid == geteuid()) && !(st.st_mode & 022);
}

/* python3 of a PATH entry only when nobody but root or this user could
 * have put it there: the entry absolute (".", "" and "bin" name whatever
 * the current directory holds), the entry, the file and the file it
 * resolves to, and that file's directory, closed to others (issue 47: a
 * planted python3 in a group-writable directory after /usr/bin ran as
 * root when the system Python lacked h5py). */
static int safe_candidate(const char *dir, size_t n, char *buf, size_t len)
{
	char real[PATH_MAX], *slash;

	if (!n || dir[0] != '/' || n + sizeof "/python3" >= len)
		return 0;
	snprintf(buf, len, "%.*s", (int)n, dir);
	if (!trusted(buf))
		return 0;
	snprintf(buf, len, "%.*s/python3", (int)n, dir);
	if (access(buf, X_OK) != 0 || !trusted(buf) || !realpath(buf, real) || !trusted(real))
		return 0;
	slash = strrchr(real, '/');
	if (slash && slash != real)
		*slash = '\0';
	return trusted(real);
}

static int on_path(char *buf, size_t len)
{
	const char *path = tly_env_raw("PATH");

	for (const char *p = path ? path : ""; *p;) {
		size_t n = strcspn(p, ":");

		if (safe_candidate(p, n, buf, len))
			return 1;
		p += n + (p[n] == ':');
	}
	return 0;
}

static int has_h5py(const char *py)
{
	char *av[] = { (char *)py, "-I", "-c",
		       "import importlib.util as u, sys; sys.exit(u.find_spec('h5py') is None)", NULL };
	char out[8];

	return access(py, X_OK) == 0 && tly_spawn_capture(av, out, sizeof out) == 0;
}

const char *tly_python(void)
{
	static char chosen[PATH_MAX], path[PATH_MAX];
	const char *v = tly_setting_raw(TLY_SET_python), *pre = tly_env_raw("LD_PRELOAD");
	const char *cand[3];
	char saved[PATH_MAX * 2] = "";
	int n = 0;

	if (v && *v)
		return v;
	if (chosen[0])
		return chosen;
	cand[n++] = TALLY_REPORT_PYTHON;
	cand[n++] = TALLY_CONFIGURED_PYTHON;
	if (on_path(path, sizeof path))
		cand[n++] = path;
	if (pre) {
		snprintf(saved, sizeof saved, "%s", pre);
		unsetenv("LD_PRELOAD");
	}
	for (int i = 0; i < n && !chosen[0]; i++)
		if (has_h5py(cand[i]))
			snprintf(chosen, sizeof chosen, "%s", cand[i]);
	for (int i = 0; i < n && !chosen[0]; i++)
		if (access(cand[i], X_OK) == 0)
			snprintf(chosen, sizeof chosen, "%s", cand[i]);
	if (saved[0])
		setenv("LD_PRELOAD", saved, 1);
	/* never a bare "python3" (a PATH search): the configured one, which
	 * then says in one line that it lacks h5py */
	return chosen[0] ? chosen : TALLY_REPORT_PYTHON;
}

/* Isolated (-I: no current directory, script directory or user site on
 * sys.path, no PYTHON* variable read), the package directory put first
 * on sys.path by the code itself, then tally-report's main with the rest
 * of the arguments: nothing planted in the directory the user runs from
 * (argparse.py, numpy.py) or named by PYTHONPATH/PYTHONSTARTUP runs.
 * -B: the prefix gets no __pycache__ (tally-run runs as root as often
 * as not). */
static char report_boot[] = "import sys; sys.path.insert(0, sys.argv.pop(1)); "
			    "from tally.cli import main; sys.exit(main())";

int tly_report_argv(char **av)
{
	static char pkg[PATH_MAX];
	char exe[PATH_MAX - 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

	exe[n > 0 ? n : 0] = '\0';
	snprintf(pkg, sizeof pkg, "%s/../share/tally/python", dirname(exe));
	av[0] = (char *)tly_python();
	av[1] = "-IB"; /* and -B: nothing written into the prefix (__pycache__) */
	av[2] = "-c";
	av[3] = report_boot;
	av[4] = pkg;
	return TLY_REPORT_ARGS;
}
