/*
 * replay.c - application replay: tally-run --passes runs the whole job P
 * times, run k with TALLY_PASS_INDEX=k writing <name>.<run>.pass<k>.h5
 * (<run>: this run's own id, so an earlier run's passes are never merged), then
 * merges the P files into <name>.h5.  P comes from the schedule that run 0
 * recorded (--passes=auto) or from the user (--passes=N).  Only the outer
 * style works (tally-run --passes -- mpirun ...): one tally-run must drive
 * all runs, so a tally-run started per rank by a launcher says so and runs
 * its one pass.
 */
#include "replay.h"

#include "python.h"
#include "spawn.h"
#include "tally_shared.h"

#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TLY_REPLAY_MAX 64   /* passes at most */

/* The merge (tally-report merge-passes) is not measured: no preload while it runs. */
static void preload(int on)
{
	static char saved[PATH_MAX * 2];
	const char *v = tly_env_raw("LD_PRELOAD");

	if (!on && v) {
		snprintf(saved, sizeof saved, "%s", v);
		unsetenv("LD_PRELOAD");
	} else if (on && saved[0]) {
		setenv("LD_PRELOAD", saved, 1);
	}
}

/* The number of passes run 0 recorded in its file (0 when unknown). */
static int recorded_passes(const char *file)
{
	char line[64];
	char *av[TLY_REPORT_ARGS + 4];
	int k = tly_report_argv(av), n = 0;

	av[k++] = "merge-passes";
	av[k++] = "--npasses";
	av[k++] = (char *)file;
	av[k] = NULL;
	preload(0);
	if (tly_spawn_capture(av, line, sizeof line) == 0)
		n = atoi(line);
	preload(1);
	return n;
}

static int launched_per_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK" };

	for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
		if (tly_env_raw(vars[i]))
			return 1;
	return 0;
}

/* The job file's name without ".h5" (the runtime puts it in TALLY_OUTPUT_DIR). */
static void job_stem(char **argv, char *buf, size_t len)
{
	const char *name = tly_setting_raw(TLY_SET_output_name);
	char prog[256], stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	size_t n;

	if (name && *name) {
		n = strlen(name);
		if (n > 3 && !strcmp(name + n - 3, ".h5"))
			n -= 3;
		snprintf(buf, len, "%.*s", (int)n, name);
		return;
	}
	snprintf(prog, sizeof prog, "%s", argv[0]);
	localtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "tally-%s-%s-%ld", basename(prog), stamp, (long)getpid());
}

static int replace_ok(void)
{
	char why[256];
	int yes = 0;

	return tly_setting_bool(TLY_SET_output_replace, &yes, why, sizeof why) == 0 && yes;
}

static int merge(const char *base, const char *run, int npasses)
{
	char out[PATH_MAX], in[TLY_REPLAY_MAX][PATH_MAX];
	char *av[TLY_REPORT_ARGS + TLY_REPLAY_MAX + 3];
	int n = tly_report_argv(av), rc;

	snprintf(out, sizeof out, "%s.h5", base);
	/* never over an earlier run's job file unless TALLY_OUTPUT_REPLACE says
	 * so: <base>.1.h5, ... as the runtime names its files (a rerun replaced
	 * job.h5) */
	for (int i = 1; i < 10000 && !replace_ok() && access(out, F_OK) == 0; i++)
		snprintf(out, sizeof out, "%s.%d.h5", base, i);
	av[n++] = "merge-passes";
	av[n++] = out;
	for (int k = 0; k < npasses; k++) {
		snprintf(in[k], sizeof in[k], "%s.%s.pass%d.h5", base, run, k);
		av[n++] = in[k];
	}
	av[n] = NULL;
	preload(0);
	rc = tly_spawn_wait(av, NULL);
	preload(1);
	if (rc == 0 || rc == 3)   /* 3: merged, with the mismatch report */
		fprintf(stderr, "tally-run: application replay: %d pass(es) merged into %s%s\n", npasses, out,
			rc ? " (the runs differ: see table pass_checks)" : "");
	else
		fprintf(stderr, "tally-run: application replay: merging the passes failed (%d); the per-pass "
			"files %s.%s.pass*.h5 are kept\n", rc, base, run);
	return rc;
}

/* GPU counter data images (<image>.rank<r>.cdata) are only needed from
 * one run to the next: gone once the runs are over. */
static void remove_images(const char *image)
{
	char pat[PATH_MAX + 16];
	glob_t g;

	snprintf(pat, sizeof pat, "%s.rank*.cdata", image);
	if (glob(pat, 0, NULL, &g) != 0)
		return;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char *slash = strrchr(g.gl_pathv[i], '/');
		int dfd;

		if (slash)
			*slash = '\0';
		dfd = tly_safe_open_dir(slash ? (slash == g.gl_pathv[i] ? "/" : g.gl_pathv[i]) : ".");
		if (dfd >= 0) {   /* the name, never a link's target */
			(void)tly_safe_remove_at(dfd, slash ? slash + 1 : g.gl_pathv[i], 0, 0);
			close(dfd);
		}
	}
	globfree(&g);
}

/* Pass files of earlier runs beside this one's (<base>.pass*.h5, <base>.r*.pass*.h5):
 * never merged into this run's file (a rerun once merged the previous run's
 * passes and left its own in <base>.pass*.1.h5), left alone, and said. */
static void earlier_passes(const char *base, const char *run)
{
	char pat[PATH_MAX + 32];
	size_t n = 0;
	glob_t g;

	for (int i = 0; i < 2; i++) {
		snprintf(pat, sizeof pat, i ? "%s.r*.pass*.h5" : "%s.pass*.h5", base);
		if (glob(pat, 0, NULL, &g) == 0) {
			n += g.gl_pathc;
			globfree(&g);
		}
	}
	if (n)
		fprintf(stderr, "tally-run: application replay: %zu pass file(s) of earlier runs beside %s.h5 are "
			"left alone; this run's are %s.%s.pass*.h5\n", n, base, base, run);
}

int tly_replay_run(const char *passes, char **argv)
{
	const char *dir = tly_setting_raw(TLY_SET_output_dir);
	char stem[PATH_MAX / 2], base[PATH_MAX - 32], name[PATH_MAX / 2 + 32], path[PATH_MAX], idx[16];
	char image[PATH_MAX], cwd[PATH_MAX / 2], run[48];
	char *env[] = { "TALLY_PASS_INDEX", idx, "TALLY_OUTPUT_NAME", name, "TALLY_PASS_IMAGE", image, NULL };
	char *end;
	long asked = strtol(passes, &end, 10);
	int need;
	int npasses = !strcmp(passes, "auto") ? 0 : *end || end == passes || asked > TLY_REPLAY_MAX ? -1 : (int)asked, rc;

	if (tly_setting_raw(TLY_SET_pass_index))
		return -1;   /* a tally-run inside a replayed run */
	if (launched_per_rank()) {
		fprintf(stderr, "tally-run: --passes needs the outer style (tally-run --passes -- mpirun -np N "
			"./app); started per rank, this job runs once\n");
		return -1;
	}
	if (strcmp(passes, "auto") && (npasses < 1 || npasses > TLY_REPLAY_MAX)) {
		char shown[64];   /* escaped and cut: a newline in the value would split the line */

		fprintf(stderr, "tally-run: --passes=%s: not 'auto' nor 1..%d; using auto\n",
			tly_quote(passes, shown, sizeof shown), TLY_REPLAY_MAX);
		npasses = 0;
	}
	job_stem(argv, stem, sizeof stem);
	if (stem[0] == '/')   /* an absolute TALLY_OUTPUT_NAME ignores the directory */
		snprintf(base, sizeof base, "%s", stem);
	else
		snprintf(base, sizeof base, "%s/%s", dir && *dir ? dir : ".", stem);
	/* absolute: the ranks may start in another directory */
	if (base[0] != '/' && getcwd(cwd, sizeof cwd))
		snprintf(image, sizeof image, "%s/%s", cwd, base);
	else
		snprintf(image, sizeof image, "%s", base);
	snprintf(run, sizeof run, "r%ld-%ld", (long)getpid(), (long)time(NULL));   /* this run's own id */
	earlier_passes(base, run);
	for (int k = 0; k < (npasses ? npasses : 1); k++) {
		snprintf(idx, sizeof idx, "%d", k);
		snprintf(name, sizeof name, "%s.%s.pass%d.h5", stem, run, k);
		snprintf(path, sizeof path, "%s.%s.pass%d.h5", base, run, k);
		if (npasses)
			fprintf(stderr, "tally-run: application replay: run %d of %d\n", k + 1, npasses);
		else
			fprintf(stderr, "tally-run: application replay: run 1 (it finds the number of passes)\n");
		if ((rc = tly_spawn_wait(argv, env)) != 0) {
			fprintf(stderr, "tally-run: application replay: run %d exited with %d; stopping (files of "
				"the runs before are kept)\n", k + 1, rc);
			remove_images(image);
			return rc;
		}
		if (k == 0 && npasses > 1 && (need = recorded_passes(path)) >= 1 && need < npasses) {
			/* more runs than the schedule has passes: a pass with no
			 * events once gave a pass_checks row of rank -1 and a file
			 * tally-report refused */
			fprintf(stderr, "tally-run: application replay: the schedule needs %d pass(es); %d run(s), "
				"not %d\n", need, need, npasses);
			npasses = need;
		}
		if (!npasses && (npasses = recorded_passes(path)) < 1) {
			fprintf(stderr, "tally-run: application replay: no schedule in %s; one pass\n", path);
			npasses = 1;
		}
	}
	remove_images(image);
	rc = merge(base, run, npasses);
	return rc == 0 || rc == 3 ? 0 : rc;
}
