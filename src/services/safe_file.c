/*
 * safe_file.c - the one service through which Tally creates, moves and
 * removes anything on disk (safe_file.h; tally_shared.h for the calls by
 * descriptor; testsuite/layout/check_file_creation.py forbids it
 * elsewhere): no planted link is followed, no file of another user is
 * read, nothing is ever created world-writable, and a directory is used
 * only as checked on its descriptor, never by a name checked first.
 */
#include "services/safe_file.h"
#include "tally_shared.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
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
	return tly_safe_open_own_at(AT_FDCWD, path);
}

int tly_safe_private_dir(const char *dir)
{
	char parent[4096];
	char *slash;
	int fd, pfd;

	if (!dir || !*dir || strlen(dir) >= sizeof parent)
		return -EINVAL;
	fd = tly_safe_own_dir(dir, 022);   /* made, then checked on its descriptor */
	if (fd != -ENOENT)
		return fd;
	/* one missing level (~/.cache on a fresh account), made the same way */
	snprintf(parent, sizeof parent, "%s", dir);
	slash = strrchr(parent, '/');
	if (!slash || slash == parent || !slash[1])
		return -ENOENT;
	*slash = '\0';
	pfd = tly_safe_own_dir(parent, 022);
	if (pfd < 0)
		return pfd;
	fd = tly_safe_own_dir_at(pfd, slash + 1, 022);
	close(pfd);
	return fd;
}

FILE *tly_safe_create_at(int dirfd, const char *name, char *tmp, size_t len)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[6];
	char tail[7];
	FILE *f;
	int fd = -EEXIST, n;

	for (int i = 0; i < 16 && fd == -EEXIST; i++) {
		if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r)
			for (size_t k = 0; k < sizeof r; k++)
				r[k] = (unsigned char)(((unsigned)clock() >> k) ^ (unsigned)getpid() ^ (unsigned)(i * 31 + k));
		for (size_t k = 0; k < sizeof r; k++)
			tail[k] = abc[r[k] % (sizeof abc - 1)];
		tail[6] = '\0';
		n = snprintf(tmp, len, "%s.%s.tmp", name, tail);
		if (n < 0 || (size_t)n >= len || strchr(name, '/')) {
			errno = strchr(name, '/') ? EINVAL : ENAMETOOLONG;
			return NULL;
		}
		fd = tly_safe_file_at(dirfd, tmp, O_WRONLY, 0600, 0);   /* O_EXCL, no link followed */
	}
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "wb");
	if (!f) {
		int e = errno;

		close(fd);
		unlinkat(dirfd, tmp, 0);
		errno = e;
	}
	return f;
}

int tly_safe_commit_at(FILE *f, int dirfd, const char *tmp, const char *name, int ok)
{
	int e = EIO, rc;

	ok = !ferror(f) && ok;
	if (fclose(f) != 0)
		ok = 0, e = errno;
	if (ok && (rc = tly_safe_move_at(dirfd, tmp, dirfd, name, 1)) == 0)
		return 0;
	if (ok)
		e = -rc;
	unlinkat(dirfd, tmp, 0);
	errno = e;
	return -1;
}

FILE *tly_safe_open_own_at(int dirfd, const char *name)
{
	struct stat st;
	FILE *f;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);   /* a FIFO never blocks */

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

/* 1 when the directory open on `fd` has no entry but . and .. */
static int dir_empty(int fd)
{
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;
	int empty = d != NULL;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return 0;
	}
	while (empty && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

/* The mode tly_safe_mkdir_at makes a directory with: 0700 and the sticky
 * bit, which Linux's mkdir keeps (umask leaves it) and which hardly any
 * directory of a user has.  The directory this call made carries it from
 * the mkdir; one moved in under the name before the open does only if it
 * was made so.  Cleared once the directory is taken (fchmod on the
 * descriptor). */
#define MADE_MODE (S_ISVTX | 0700)

/* The checks of tly_safe_mkdir_at on the directory just opened: this
 * user's, with the mark of the mkdir and closed to others (setgid only as
 * inherited from the parent), no link but its own, empty and born no
 * earlier than the mkdir.  (Before the mark, a directory of this user,
 * 0700 and empty, born within the second before the mkdir, passed: under
 * load safety_adopt_swap's victims, made a second before, were taken and
 * removed at the end.) */
static int is_made_here(int fd, int parent_sgid, const struct timespec *t0, mode_t *mode)
{
	struct statx sx;
	mode_t extra;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_BTIME, &sx) != 0)
		return 0;
	extra = (mode_t)(sx.stx_mode & 07077) & ~(mode_t)(parent_sgid ? S_ISGID : 0);
	if (!S_ISDIR(sx.stx_mode) || sx.stx_uid != geteuid() || (sx.stx_mode & 0700) != 0700 || extra != S_ISVTX ||
	    sx.stx_nlink > 2)
		return 0;
	if ((sx.stx_mask & STATX_BTIME) && sx.stx_btime.tv_sec < (long long)t0->tv_sec - 1)
		return 0;   /* an older directory moved in under the name */
	*mode = (mode_t)(sx.stx_mode & 07777);
	return dir_empty(fd);
}

int tly_safe_mkdir_at(int dirfd, const char *name)
{
	struct timespec t0;
	struct stat ps;
	mode_t mode;
	int fd;

	if (fstat(dirfd, &ps) != 0)
		return -errno;
	clock_gettime(CLOCK_REALTIME_COARSE, &t0);
	if (mkdirat(dirfd, name, MADE_MODE) != 0)
		return -errno;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ELOOP || errno == ENOTDIR ? -EXDEV : -errno;
	if (!is_made_here(fd, (ps.st_mode & S_ISGID) != 0, &t0, &mode)) {
		close(fd);   /* not ours: left as it is */
		return -EXDEV;
	}
	if (fchmod(fd, mode & ~(mode_t)S_ISVTX) != 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* ---- by descriptor: what every other file of Tally calls ---- */

/* A link as the directory's last component is followed only when this
 * user, root or the owner of the directory holding it made it (the rule
 * of the kernel's protected_symlinks): a link someone else put there (in
 * place of a job directory .parts, or of the directory a user named) is
 * not.  The link checked is the one followed: opened O_PATH, its target
 * read from that descriptor. */
static int follow_trusted(const char *dir)
{
	char parent[1024], target[4096];
	const char *slash = strrchr(dir, '/');
	const char *name = slash ? slash + 1 : dir;
	struct stat ls, ps;
	int pfd, lfd, fd = -ELOOP;
	ssize_t n;

	snprintf(parent, sizeof parent, "%.*s", slash ? (slash == dir ? 1 : (int)(slash - dir)) : 1,
		 slash ? dir : ".");
	pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	lfd = openat(pfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (lfd >= 0 && fstat(lfd, &ls) == 0 && fstat(pfd, &ps) == 0 && S_ISLNK(ls.st_mode)
	    && (ls.st_uid == geteuid() || ls.st_uid == 0 || ls.st_uid == ps.st_uid)
	    && (n = readlinkat(lfd, "", target, sizeof target - 1)) > 0) {
		target[n] = '\0';
		fd = openat(pfd, target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		fd = fd < 0 ? -errno : fd;
	}
	if (lfd >= 0)
		close(lfd);
	close(pfd);
	return fd;
}

/* 1 for "/proc/self/fd/<n>": a directory this process holds open, named
 * by its descriptor (the kernel's link goes to the open directory itself,
 * not through any name). */
static int is_own_fd_path(const char *dir)
{
	const char *n = dir + strlen("/proc/self/fd/");

	if (strncmp(dir, "/proc/self/fd/", strlen("/proc/self/fd/")) || !*n)
		return 0;
	return strspn(n, "0123456789") == strlen(n);
}

int tly_safe_open_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (is_own_fd_path(dir) ? 0 : O_NOFOLLOW));

	if (fd >= 0)
		return fd;
	return errno == ELOOP ? follow_trusted(dir) : -errno;
}

int tly_safe_own_dir_at(int dirfd, const char *name, mode_t closed)
{
	struct stat st;
	int fd;

	if (mkdirat(dirfd, name, 0700) != 0 && errno != EEXIST)
		return -errno;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP || errno == ENOTDIR ? -EPERM : -errno;
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & closed)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int tly_safe_own_dir(const char *path, mode_t closed)
{
	char parent[4096];
	const char *slash = strrchr(path, '/');
	int pfd, fd;

	if (!*path || strlen(path) >= sizeof parent || (slash && !slash[1]))
		return -EINVAL;   /* "d/" would follow a link d */
	snprintf(parent, sizeof parent, "%.*s", slash ? (slash == path ? 1 : (int)(slash - path)) : 1,
		 slash ? path : ".");
	pfd = tly_safe_open_dir(parent);
	if (pfd < 0)
		return pfd;
	fd = tly_safe_own_dir_at(pfd, slash ? slash + 1 : path, closed);
	close(pfd);
	return fd;
}

int tly_safe_file_at(int dirfd, const char *name, int flags, mode_t mode, int reuse)
{
	struct stat st;
	int fd;

	flags &= O_ACCMODE | O_APPEND;
	flags |= O_CREAT | O_NOFOLLOW | O_CLOEXEC | (reuse ? 0 : O_EXCL);   /* never O_TRUNC */
	mode &= ~(mode_t)S_IWOTH;
	fd = openat(dirfd, name, flags, mode);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;   /* reuse: a file of another user, or no regular file */
	}
	return fd;
}

int tly_safe_move_at(int fromfd, const char *from, int tofd, const char *to, int replace)
{
	struct stat st;

	if (replace)
		return renameat(fromfd, from, tofd, to) == 0 ? 0 : -errno;
	if (renameat2(fromfd, from, tofd, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* no RENAME_NOREPLACE here: a file by link (which never replaces),
	 * a directory by a plain rename, which replaces only an empty one */
	if (fstatat(fromfd, from, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	if (!S_ISDIR(st.st_mode)) {
		if (linkat(fromfd, from, tofd, to, 0) != 0)
			return -errno;
		unlinkat(fromfd, from, 0);
		return 0;
	}
	if (fstatat(tofd, to, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	return renameat(fromfd, from, tofd, to) == 0 ? 0 : -errno;
}

int tly_safe_remove_at(int dirfd, const char *name, int dir, unsigned long long ino)
{
	struct stat st;

	if (ino && (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || (unsigned long long)st.st_ino != ino
		    || !S_ISDIR(st.st_mode) != !dir))
		return -EXDEV;   /* the name holds something else now: left alone */
	return unlinkat(dirfd, name, dir ? AT_REMOVEDIR : 0) == 0 ? 0 : -errno;
}
