/*
 * out_name.c - the output file's name: TALLY_OUTPUT_DIR/TALLY_OUTPUT_NAME
 * (an absolute name is used as it is), else a name made of the program,
 * date, time and pid.  A directory that cannot be written gives one message
 * and the file goes to the user's private directory (output/out_file.c),
 * never to a shared /tmp where others could plant links.
 */
#include "runtime/rt.h"

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
	tly_rt_log(1, "output directory '%s' is not writable (%s); writing to %s instead", dir, strerror(e), buf);
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

void tly_out_choose_name(char *buf, size_t len, const char *suffix)
{
	struct tly_rt_proc *p = tly_rt_proc();
	const char *name = p->opt.raw.output_name, *dir;
	char given[PATH_MAX], priv[PATH_MAX], stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	if (name[0] == '/') {
		const char *base = strrchr(name, '/') + 1;

		dir_of(name, given, sizeof given);
		dir = writable_dir(given, priv, sizeof priv);
		snprintf(buf, len, "%s/%s", dir, base);
		return;
	}
	dir = writable_dir(p->opt.raw.output_dir, priv, sizeof priv);
	if (name[0]) {
		snprintf(buf, len, "%s/%s", dir, name);
		return;
	}
	if (p->job.size > 1 && !p->in_mpi_job) {
		/* every process of the job finds the same name without talking */
		snprintf(buf, len, "%s/tally-%s-%s%s", dir, p->exe, p->job.id, suffix);
		return;
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "%s/tally-%s-%s-%ld%s", dir, p->exe, stamp, (long)getpid(), suffix);
}
