/*
 * safe_file.c - the library's own files created and read safely (see
 * safe_file.h): no planted link is followed, no file of another user is
 * read, no file is ever created world-writable.
 */
#include "services/safe_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *tly_safe_create(const char *path, char *tmp, size_t len)
{
	FILE *f;
	int fd, n;

	if (!path || !tmp) {
		errno = EINVAL;
		return NULL;
	}
	n = snprintf(tmp, len, "%s.XXXXXX.tmp", path);
	if (n < 0 || (size_t)n >= len) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = mkostemps(tmp, 4, O_NOFOLLOW | O_CLOEXEC);   /* O_EXCL, mode 0600 */
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "wb");
	if (!f) {
		int e = errno;

		close(fd);
		unlink(tmp);
		errno = e;
	}
	return f;
}

int tly_safe_commit(FILE *f, const char *tmp, const char *path, int ok)
{
	int e = EIO;

	ok = !ferror(f) && ok;
	if (fclose(f) != 0)
		ok = 0, e = errno;
	if (ok && rename(tmp, path) == 0)
		return 0;
	if (ok)
		e = errno;
	unlink(tmp);
	errno = e;
	return -1;
}

FILE *tly_safe_open_own(const char *path)
{
	struct stat st;
	FILE *f;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		errno = EPERM;
		return NULL;
	}
	f = fdopen(fd, "rb");
	if (!f)
		close(fd);
	return f;
}

static int own_dir(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int tly_safe_private_dir(const char *dir)
{
	char parent[4096];
	char *slash;

	if (!dir || !*dir || strlen(dir) >= sizeof parent) {
		errno = EINVAL;
		return -1;
	}
	if (mkdir(dir, 0700) == 0 || errno == EEXIST)
		return own_dir(dir);
	if (errno != ENOENT)
		return -1;
	/* one missing level (~/.cache on a fresh account) */
	snprintf(parent, sizeof parent, "%s", dir);
	slash = strrchr(parent, '/');
	if (!slash || slash == parent)
		return -1;
	*slash = '\0';
	if (mkdir(parent, 0700) != 0 && errno != EEXIST)
		return -1;
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return -1;
	return own_dir(dir);
}
