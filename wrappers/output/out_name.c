/*
 * out_name.c - the output file's name: TALLY_OUTPUT_DIR/TALLY_OUTPUT_NAME
 * (an absolute name is used as it is), else a name made of the program,
 * date, time and pid.  A directory that cannot be written gives one message
 * and the file goes to the user's private directory (output/out_file.c),
 * never to a shared /tmp where others could plant links.
 */
#include "output/out_host.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "output/out_file.h"
#include "output/output.h"

/* `dir` when it can be written, else the private directory in `buf`. */
static const char *writable_dir(const char *dir, char *buf, size_t len)
{
	int e;

	if (!access(dir, W_OK | X_OK))
		return dir;
	e = errno;
	if (tly_out_private_dir(buf, len) != 0)
		return dir;   /* the write then fails with its own message */
	tly_out_log(1, "output directory '%s' is not writable (%s); writing to %s instead", dir, strerror(e), buf);
	return buf;
}

/* The directory part of `path` ("." when none). */
static void dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(buf, len, ".");
	else if (slash == path)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

/* A name the user gave, with the suffix's ".partial" when it has one:
 * `run.h5` -> `run.partial.h5` (a partial file never takes the name of
 * the complete one). */
static void given_name(char *buf, size_t len, const char *dir, const char *name, const char *suffix)
{
	size_t n = strlen(name);

	if (!strstr(suffix, ".partial"))
		snprintf(buf, len, "%s/%s", dir, name);
	else if (n > 3 && !strcmp(name + n - 3, ".h5"))
		snprintf(buf, len, "%s/%.*s.partial.h5", dir, (int)(n - 3), name);
	else
		snprintf(buf, len, "%s/%s.partial.h5", dir, name);
}

/* The program's name in a default file name: at most PROG_MAX characters
 * (a file name is at most 255; a 250-character program wrote nothing). */
#define PROG_MAX 64

void tly_out_choose_name(char *buf, size_t len, const char *suffix)
{
	struct tly_rt_proc *p = tly_out_proc();
	const char *name = p->opt.raw.output_name, *dir;
	char given[PATH_MAX], priv[PATH_MAX], stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	if (name[0] == '/') {
		const char *base = strrchr(name, '/') + 1;

		dir_of(name, given, sizeof given);
		dir = writable_dir(given, priv, sizeof priv);
		given_name(buf, len, dir, base, suffix);
		return;
	}
	dir = writable_dir(p->opt.raw.output_dir, priv, sizeof priv);
	if (name[0]) {
		given_name(buf, len, dir, name, suffix);
		return;
	}
	if (p->job.size > 1 && !p->in_mpi_job) {
		/* every process of the job finds the same name without talking */
		snprintf(buf, len, "%s/tally-%.*s-%s%s", dir, PROG_MAX, p->exe, p->job.id, suffix);
		return;
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "%s/tally-%.*s-%s-%ld%s", dir, PROG_MAX, p->exe, stamp, (long)getpid(), suffix);
}
