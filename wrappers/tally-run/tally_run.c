/*
 * tally-run - run a program (serial, an MPI rank, or a launcher such as
 * mpirun) under Tally's measurement runtime.  Every TALLY_* setting of
 * TALLY_* row of the settings table (src/settings/settings.def) is a flag: TALLY_OUTPUT_DIR is --output-dir DIR (or
 * --output-dir=DIR); yes/no settings also take --NAME and --no-NAME.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "python.h"
#include "replay.h"
#include "tally_shared.h"

struct setting {
	const char *env, *kind, *def, *help;
};

static const struct setting settings[] = {
#define TLY_SETTING(field, env, kind, def, max, help) { #env, #kind, def, help },
#include "settings/settings.def"
#undef TLY_SETTING
};
#define NSET (sizeof settings / sizeof *settings)

/* "TALLY_OUTPUT_DIR" -> "output-dir" */
static void flag_name(const char *env, char *buf, size_t len)
{
	size_t i = 0;

	for (const char *s = env + 6; *s && i + 1 < len; s++)
		buf[i++] = *s == '_' ? '-' : (char)(*s - 'A' + 'a' + (*s < 'A' || *s > 'Z' ? 'A' - 'a' : 0));
	buf[i] = '\0';
}

/* The value flag i takes, in words, by kind (a choice's words in buf). */
static const char *value_words(size_t i, char *buf, size_t len)
{
	const char *kind = settings[i].kind;

	if (!strcmp(kind, "CHOICE")) {
		snprintf(buf, len, "one of %s", tly_setting_choices((int)i));
		return buf;
	}
	if (!strcmp(kind, "BOOL"))
		return "yes|no (also 1/0, on/off, true/false)";
	if (!strcmp(kind, "INT"))
		return "a decimal integer >= 0";
	if (!strcmp(kind, "SIZE"))
		return "bytes, with an optional k, M or G suffix";
	if (!strcmp(kind, "LIST"))
		return "comma-separated names";
	return "text";
}

/* A setting only tally-report reads (its help says so): no flag of
 * tally-run's help, which is about running a program. */
static int report_only(size_t i)
{
	return !strncmp(settings[i].help, "tally-report", 12);
}

static void usage_lines(FILE *f)
{
	fprintf(f, "usage: tally-run [options] [--] program [args...]\n"
		   "       mpirun -np N tally-run [options] -- ./app     (per rank; any launcher)\n"
		   "       tally-run [options] -- mpirun -np N ./app     (one node)\n"
		   "       tally-run [options] -- torchrun ... | srun ... (jobs without MPI: ranks from the launcher)\n"
		   "       tally-run --passes=auto [options] -- mpirun -np N ./app  (application replay)\n"
		   "       tally-run --summary FILE.h5                   (short summary of a file)\n");
}

static void usage(FILE *f)
{
	char name[64], words[256];

	usage_lines(f);
	fprintf(f, "\nRuns the program with libtally-preload.so: per-thread counters and regions,\n"
		   "MPI profile and OpenMP regions, written to one HDF5 file per job.\n"
		   "Options come before the program; '--' ends them.  An unknown option is an\n"
		   "error (exit status 2): the program is not run.\n\n"
		   "options (each is also an environment setting):\n");
	for (size_t i = 0; i < NSET; i++) {
		int isbool = !strcmp(settings[i].kind, "BOOL");

		if (strncmp(settings[i].env, "TALLY_", 6) != 0 || report_only(i))
			continue;   /* PAPI's own names (PAPI_EVENTS): no flag */
		flag_name(settings[i].env, name, sizeof name);
		if (isbool)
			fprintf(f, "  --%s, --%s=yes|no, --no-%s\n", name, name, name);
		else
			fprintf(f, "  --%s=VALUE, --%s VALUE\n", name, name);
		fprintf(f, "      %s: %s; default '%s'\n      %s\n", settings[i].env, value_words(i, words, sizeof words),
			settings[i].def, settings[i].help);
	}
	fprintf(f, "  --summary FILE.h5\n      print a short summary of a Tally file and exit\n"
		   "  --help\n      this text\n"
		   "  --\n      end of options: the program and its arguments follow\n"
		   "tally-report's own settings (TALLY_DEBUG, TALLY_SCHEMA, ...) are set in the environment: "
		   "tally-report --help, docs/settings.md\n");
}

/* No program given: the forms of the command and where the rest is, not
 * the whole option list. */
static int no_program(void)
{
	size_t n = 0;

	for (size_t i = 0; i < NSET; i++)
		n += !strncmp(settings[i].env, "TALLY_", 6) && !report_only(i);
	fprintf(stderr, "tally-run: no program to run\n");
	usage_lines(stderr);
	fprintf(stderr, "tally-run --help lists the %zu options (each also a TALLY_* environment setting)\n", n);
	return 2;
}

static void exe_dir(char *buf, size_t len)
{
	char p[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", p, sizeof p - 1);

	p[n > 0 ? n : 0] = '\0';
	snprintf(buf, len, "%s", dirname(p));
}

static void find_preload(char *buf, size_t len)
{
	const char *set = tly_setting_raw(TLY_SET_preload);
	char dir[PATH_MAX - 64];

	if (set && *set) {
		snprintf(buf, len, "%s", set);
		return;
	}
	exe_dir(dir, sizeof dir);
	snprintf(buf, len, "%s/libtally-preload.so", dir);
	if (access(buf, R_OK) != 0)
		snprintf(buf, len, "%s/../lib/libtally-preload.so", dir);
	if (access(buf, R_OK) != 0)
		snprintf(buf, len, "%s/../lib64/libtally-preload.so", dir);
}

static void prepend_env(const char *var, const char *val, const char *sep)
{
	const char *old = tly_env_raw(var);
	size_t n = strlen(val) + (old ? strlen(old) : 0) + 2;
	char *v = malloc(n);

	if (!v)
		return;
	snprintf(v, n, "%s%s%s", val, old && *old ? sep : "", old ? old : "");
	setenv(var, v, 1);
	free(v);
}

static int summary(const char *file)
{
	char *av[TLY_REPORT_ARGS + 3];
	int n = tly_report_argv(av);

	av[n++] = "summary";
	av[n++] = (char *)file;
	av[n] = NULL;
	/* av[0] is the interpreter's path: Python finds its prefix from
	 * argv[0], and "python3" on a PATH whose first python3 is another
	 * installation (a Spack build environment) gives it the wrong one */
	execv(av[0], av);
	fprintf(stderr, "tally-run: cannot run %s for --summary: %s (set TALLY_PYTHON)\n", av[0], strerror(errno));
	return 1;
}

/* Open MPI's launcher sends SIGKILL one second after SIGTERM
 * (odls_base_sigkill_timeout), which can cut a rank's partial file short
 * (it then leaves only FILE.tmp).  Give the writers 5 s unless the user
 * chose: Open MPI waits that long on every job it kills, so a larger
 * value delays the end of failed jobs. */
static void sigkill_grace(void)
{
	setenv("OMPI_MCA_odls_base_sigkill_timeout", "5", 0);
}

/* An output name no HDF5 file can take: standard output ("-"), or an
 * existing device or FIFO other than the null device. The file is written
 * by seeking and renamed into place, so neither can hold it, and a
 * suffixed name beside a device is no answer: refused in one line (rank
 * 0's, whichever launcher's variable names it), nothing run.  The null
 * device (/dev/null) means measure and discard: the runtime measures,
 * writes nothing and says so once at the end (runtime/rt_config.c), unless
 * the passes are to be merged from files (--passes): refused too.
 * 1 when refused. */
static int refuse_output(void)
{
	const char *name = tly_setting_raw(TLY_SET_output_name), *dir = tly_setting_raw(TLY_SET_output_dir);
	const char *why;
	char path[PATH_MAX];
	struct stat st, null;
	int dev;

	if (!name)
		return 0;
	snprintf(path, sizeof path, "%s/%s", name[0] == '/' ? "" : dir ? dir : ".", name);
	dev = strcmp(name, "-") && !lstat(path, &st) && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode));
	if (dev && S_ISCHR(st.st_mode) && !stat("/dev/null", &null) && st.st_rdev == null.st_rdev) {
		if (!tly_setting_raw(TLY_SET_passes))
			return 0;
		if (tly_launcher_rank() <= 0)
			fprintf(stderr, "tally-run: --output-name=%s with --passes: the passes are merged from the "
				"files each run writes, so nothing can be discarded; nothing run (give a file name)\n", name);
		return 1;
	}
	if (strcmp(name, "-") && !dev)
		return 0;
	why = dev ? "a device or FIFO" : "standard output";
	if (tly_launcher_rank() <= 0)
		fprintf(stderr, "tally-run: --output-name=%s: the job's HDF5 file cannot be written to %s (it is written "
			"by seeking, then renamed into place); nothing run (give a file name, or /dev/null to measure "
			"and discard; tally-report FILE -o - prints a report to stdout)\n", name, why);
	return 1;
}

/* One option at argv[*i]; 0 when it is not an option of ours. */
static int take_option(int argc, char **argv, int *i)
{
	const char *a = argv[*i] + 2, *eq = strchr(a, '=');
	size_t n = eq ? (size_t)(eq - a) : strlen(a);
	int neg = !strncmp(a, "no-", 3);
	char name[64];

	for (size_t s = 0; s < NSET; s++) {
		int isbool = !strcmp(settings[s].kind, "BOOL");

		if (strncmp(settings[s].env, "TALLY_", 6) != 0)
			continue;
		flag_name(settings[s].env, name, sizeof name);
		if (strlen(name) == n && !strncmp(a, name, n)) {
			if (eq)
				setenv(settings[s].env, eq + 1, 1);
			else if (isbool)
				setenv(settings[s].env, "1", 1);
			else if (*i + 1 < argc)
				setenv(settings[s].env, argv[++*i], 1);
			else
				fprintf(stderr, "tally-run: --%s needs a value; ignored\n", name);
			return 1;
		}
		if (neg && isbool && strlen(name) == n - 3 && !strncmp(a + 3, name, n - 3)) {
			setenv(settings[s].env, "0", 1);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	char preload[PATH_MAX];
	int i = 1;

	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--summary"))
			return i + 1 < argc ? summary(argv[i + 1]) : (usage_lines(stderr), 2);
		if (!take_option(argc, argv, &i)) {
			/* never run what follows: "--output /tmp" would execute /tmp */
			fprintf(stderr, "tally-run: unknown option %s; nothing run (tally-run --help lists the "
				"options; '--' ends them)\n", argv[i]);
			return 2;
		}
	}
	if (i >= argc)
		return no_program();
	if (refuse_output())
		return 2;
	find_preload(preload, sizeof preload);
	if (access(preload, R_OK) != 0)
		fprintf(stderr, "tally-run: %s not found; running without measurement\n", preload);
	else
		prepend_env("LD_PRELOAD", preload, " ");
#ifdef TALLY_ASAN_RUNTIME
	/* a sanitizer build: ASan's runtime must come first in every process */
	prepend_env("LD_PRELOAD", TALLY_ASAN_RUNTIME, " ");
#endif
	if (!access(preload, R_OK))
		setenv("NVTX_INJECTION64_PATH", preload, 0);   /* Tally is the NVTX tool */
	/* TALLY_LIBOMP is acted on by the preload library in each process
	 * (runtime/rt_libomp.c), so every launch style gets it */
	sigkill_grace();
	if (tly_setting_raw(TLY_SET_passes)) {   /* application replay */
		int rc = tly_replay_run(tly_setting_raw(TLY_SET_passes), argv + i);

		if (rc >= 0)
			return rc;
	}
	execvp(argv[i], argv + i);
	fprintf(stderr, "tally-run: cannot run %s: %s\n", argv[i], strerror(errno));
	return 127;
}
