/*
 * out_file.c - safe creation of output files (see out_file.h for the rules).
 * HDF5 opens files by name with O_CREAT|O_TRUNC and follows links, so the
 * name it gets is one this process has just created exclusively and nobody
 * else can replace: in the user's own directory, in a sticky /tmp (only the
 * owner may unlink), or in the private fallback directory.  After HDF5 has
 * the file, the inode is compared with the one created, so a swap in a
 * directory writable by others is detected instead of written through.
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
	if (mkdir(buf, 0700) != 0 && errno != EEXIST) {
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

int tly_out_tmp_create(const char *path, long long reserve, char *tmp, size_t len, struct stat *st)
{
	mode_t um = umask(0);
	int fd, rc = 0;

	umask(um);
	if ((size_t)snprintf(tmp, len, "%s.XXXXXX.tmp", path) >= len)
		return -ENAMETOOLONG;
	fd = mkostemps(tmp, 4, O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fchmod(fd, (0666 & ~um) & ~(mode_t)S_IWOTH) != 0 || fstat(fd, st) != 0)
		rc = -errno;
	if (!rc && reserve > 0) {
		rc = -posix_fallocate(fd, 0, (off_t)reserve);
		if (rc == -EOPNOTSUPP || rc == -EINVAL)
			rc = 0;   /* the file system cannot tell in advance */
		if (ftruncate(fd, 0) != 0 && !rc)
			rc = -errno;
	}
	close(fd);
	if (rc)
		unlink(tmp);
	return rc;
}

int tly_out_tmp_verify(const char *tmp, const struct stat *st)
{
	struct stat now;

	if (lstat(tmp, &now) != 0)
		return -errno;
	if (!S_ISREG(now.st_mode) || now.st_dev != st->st_dev || now.st_ino != st->st_ino)
		return -EXDEV;
	return 0;
}

/* `<stem>.N.h5` for `path` = `<stem>.h5` (else `<path>.N`). */
static void numbered(const char *path, int n, char *buf, size_t len)
{
	size_t l = strlen(path);

	if (l > 3 && !strcmp(path + l - 3, ".h5"))
		snprintf(buf, len, "%.*s.%d.h5", (int)(l - 3), path, n);
	else
		snprintf(buf, len, "%s.%d", path, n);
}

/* rename without replacing: renameat2(RENAME_NOREPLACE), or where the file
 * system lacks it, link + unlink (link never replaces either). */
static int rename_noreplace(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (link(from, to) != 0)
		return -errno;
	unlink(from);
	return 0;
}

int tly_out_publish(const char *tmp, const char *path, int replace, char *final, size_t len)
{
	int rc;

	snprintf(final, len, "%s", path);
	if (replace)
		return rename(tmp, path) == 0 ? 0 : -errno;
	for (int n = 1; n < 10000; n++) {
		rc = rename_noreplace(tmp, final);
		if (rc != -EEXIST)
			return rc;
		numbered(path, n, final, len);
	}
	return -EEXIST;
}
