/*
 * lock_file.c - lock files in the user's private directory: one process
 * per physical GPU profiles (wrappers/gpu/gpu_share.c) or samples
 * (components/cuda/pcsamp/cuda_pcsamp_share.c), claimed with an flock the
 * kernel drops when the owner exits.  The directory is $TMPDIR/tally-<uid>
 * (else /tmp/tally-<uid>), created 0700 and used only when it is a real
 * directory of this user that nobody else can enter; the file is opened
 * without following a link and never truncated, so nobody else can plant
 * a link there to have a file destroyed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tally_shared.h"

static int private_dir(char *buf, size_t len)
{
	const char *base = tly_env_raw("TMPDIR");
	struct stat st;

	if (!base || base[0] != '/')
		base = "/tmp";
	snprintf(buf, len, "%s/tally-%ld", base, (long)geteuid());
	if (mkdir(buf, 0700) != 0 && errno != EEXIST)
		return -1;
	if (lstat(buf, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return -1;
	return 0;
}

int tly_private_lock_open(const char *name, long *other_uid)
{
	char dir[480], path[600];
	struct stat st;
	int fd;

	if (!name || !*name || other_uid == NULL || private_dir(dir, sizeof dir) != 0)
		return -1;
	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
		return -1;
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		*other_uid = (long)st.st_uid;
		close(fd);
		return -2;
	}
	return fd;
}
