/*
 * out_file.c - the user's private fallback directory for output files
 * (out_file.h); the files themselves are written through a private
 * directory of Tally's inside the output directory (out_stage.c).
 */
#include "output/out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/rt.h"
#include "tally_shared.h"

static int private_ok(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st) != 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return -EPERM;
	return 0;
}

int tly_out_private_dir(char *buf, size_t len)
{
	const char *base = tly_env_raw("TMPDIR");
	int rc;

	if (!base || base[0] != '/' || access(base, W_OK | X_OK))
		base = "/tmp";
	snprintf(buf, len, "%s/tally-%ld", base, (long)geteuid());
	if (mkdir(buf, 0700) != 0 && errno != EEXIST) {   /* safe-file: checked below */
		tly_rt_log(1, "cannot create the private directory %s: %s", buf, strerror(errno));
		return -1;
	}
	rc = private_ok(buf);
	if (rc) {
		tly_rt_log(1, "%s is not a private directory of this user (%s); not writing there", buf,
			   rc == -EPERM ? "a link, not a directory, another owner or open to others" : strerror(-rc));
		return -1;
	}
	return 0;
}
