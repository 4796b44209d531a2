/*
 * out_stage.c - the private directory an output file is written in (see
 * out_stage.h for the design and docs/runtime.md for why).  HDF5 opens
 * files by name and follows links, and MPI-IO needs a name every rank can
 * open; a name under a descriptor (/proc/self/fd/N/...) gives both without
 * a name anyone else can change.  What it makes, moves and removes, it
 * does through the safe-file service (services/safe_file.c).
 */
#include "output/out_stage.h"
#include "tally_shared.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TRIES 8   /* private directories tried when one is swapped away */

/* The file this process is writing alone (a serial file, a piece, a
 * partial file; an MPI job's file on rank 0), where the exit deadlines
 * reach it (tly_out_stage_abandon).  Guarded by `state` alone: the fields
 * are written between IDLE and WRITING by the one writer, read by the
 * deadline only after it moved WRITING to ABANDONED; a publish moves
 * WRITING to PUBLISHING first, so the two never both move the file. */
enum { IDLE, SETTING, WRITING, PUBLISHING, ABANDONED };
static struct {
	atomic_int state;
	atomic_int published;         /* files put in place by this process */
	int dirfd, privfd;
	unsigned long long ino;
	char dir[1024], priv[256], base[256], unfinished[256];
	char final[256];              /* the name the last file published took */
} inflight;

static void inflight_set(const struct tly_out_stage *s)
{
	size_t n = strlen(s->base);
	int idle = IDLE;

	if (!atomic_compare_exchange_strong(&inflight.state, &idle, SETTING))
		return;   /* one at a time: a second file is not reached by the deadline */
	inflight.dirfd = fcntl(s->dirfd, F_DUPFD_CLOEXEC, 0);
	inflight.privfd = fcntl(s->privfd, F_DUPFD_CLOEXEC, 0);
	inflight.ino = s->ino;
	snprintf(inflight.dir, sizeof inflight.dir, "%s", s->dir);
	if (!strncmp(s->dir, "/proc/self/fd/", 14)) {   /* a job directory by its descriptor: its name, for messages */
		ssize_t k = readlink(s->dir, inflight.dir, sizeof inflight.dir - 1);

		inflight.dir[k > 0 ? k : 0] = '\0';
		if (k <= 0)
			snprintf(inflight.dir, sizeof inflight.dir, "%s", s->dir);
	}
	snprintf(inflight.priv, sizeof inflight.priv, "%s", s->priv);
	snprintf(inflight.base, sizeof inflight.base, "%s", s->base);
	if (n > 3 && !strcmp(s->base + n - 3, ".h5"))
		n -= 3;
	snprintf(inflight.unfinished, sizeof inflight.unfinished, "%.*s.unfinished.h5", (int)(n > 230 ? 230 : n),
		 s->base);
	atomic_store(&inflight.state, inflight.dirfd >= 0 && inflight.privfd >= 0 ? WRITING : ABANDONED);
}

/* `s` is no longer written (published, discarded, closed): the deadline
 * leaves it.  0, or -ETIMEDOUT when the deadline took it first. */
static int inflight_end(const struct tly_out_stage *s, int publishing)
{
	int st = WRITING;

	if (inflight.ino != s->ino || s->privfd < 0)
		return 0;
	if (publishing)
		return atomic_compare_exchange_strong(&inflight.state, &st, PUBLISHING) ? 0
		       : st == ABANDONED ? -ETIMEDOUT : 0;
	st = atomic_load(&inflight.state);
	if (st != WRITING && st != PUBLISHING)
		return st == ABANDONED ? -ETIMEDOUT : 0;
	close(inflight.dirfd);
	close(inflight.privfd);
	inflight.ino = 0;
	atomic_store(&inflight.state, IDLE);
	return 0;
}

/* s[] + t[] into buf, without stdio (a signal handler calls this). */
static void join3(char *buf, size_t len, const char *a, const char *b, const char *c)
{
	const char *parts[3] = { a, b, c };
	size_t k = 0;

	for (int i = 0; i < 3; i++)
		for (const char *q = parts[i]; *q && k + 1 < len; q++)
			buf[k++] = *q;
	if (len)
		buf[k] = '\0';
}

int tly_out_stage_abandon(char *where, size_t len)
{
	struct timespec tick = { 0, 10000000 };
	int st = WRITING, rc;

	if (!atomic_compare_exchange_strong(&inflight.state, &st, ABANDONED)) {
		for (int i = 0; st == PUBLISHING && i < 200; i++) {   /* a rename: done within 2 s */
			nanosleep(&tick, NULL);
			st = atomic_load(&inflight.state);
		}
		if (where && len)
			where[0] = '\0';
		if (st == ABANDONED)
			return 3;   /* an earlier deadline took it and said so */
		if (st != IDLE || !atomic_load(&inflight.published))
			return 0;
		join3(where, len, inflight.dir, "/", inflight.final);
		return 2;
	}
	rc = tly_safe_move_at(inflight.privfd, inflight.base, inflight.dirfd, inflight.unfinished, 0);
	if (rc == 0) {
		(void)tly_safe_remove_at(inflight.dirfd, inflight.priv, 1, inflight.ino);
		join3(where, len, inflight.dir, "/", inflight.unfinished);
		return 1;
	}
	join3(where, len, inflight.dir, "/", inflight.priv);
	join3(where + strlen(where), len - strlen(where), "/", inflight.base, "");
	return rc;
}

static void reset(struct tly_out_stage *s)
{
	memset(s, 0, sizeof *s);
	s->dirfd = s->privfd = -1;
}

/* The directory part and the name of `path`. */
static int split(struct tly_out_stage *s, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;

	if (!*base || strlen(base) > 255)
		return -ENAMETOOLONG;
	if (!slash)
		snprintf(s->dir, sizeof s->dir, ".");
	else if (slash == path)
		snprintf(s->dir, sizeof s->dir, "/");
	else if ((size_t)(slash - path) >= sizeof s->dir)
		return -ENAMETOOLONG;
	else
		snprintf(s->dir, sizeof s->dir, "%.*s", (int)(slash - path), path);
	snprintf(s->base, sizeof s->base, "%s", base);
	for (size_t n = strlen(s->dir); n > 1 && s->dir[n - 1] == '/'; n--)
		s->dir[n - 1] = '\0';   /* "d/" would follow a link d */
	s->dirfd = tly_safe_open_dir(s->dir);
	return s->dirfd < 0 ? s->dirfd : 0;
}

/* The private directory `name` opened without following a link and
 * checked to be a directory of this user; 0 or -errno. */
static int open_private(struct tly_out_stage *s, const char *name)
{
	struct stat st;
	int fd = openat(s->dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return -EXDEV;
	}
	s->privfd = fd;
	s->ino = (unsigned long long)st.st_ino;
	snprintf(s->priv, sizeof s->priv, "%s", name);
	return 0;
}

/* HDF5's name for the file: through the directory's descriptor. */
static void h5_name(struct tly_out_stage *s)
{
	struct stat st;
	char via[64];

	snprintf(via, sizeof via, "/proc/self/fd/%d", s->privfd);
	if (stat(via, &st) == 0 && (unsigned long long)st.st_ino == s->ino)
		snprintf(s->h5, sizeof s->h5, "%s/%s", via, s->base);
	else   /* no /proc: by name, still checked after HDF5 opened it */
		snprintf(s->h5, sizeof s->h5, "%s/%s/%s", s->dir, s->priv, s->base);
}

static void random_name(const struct tly_out_stage *s, char *buf, size_t len)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[6];
	char tail[7];

	if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		for (size_t i = 0; i < sizeof r; i++)
			r[i] = (unsigned char)((ts.tv_nsec >> (i * 5)) ^ (getpid() >> i));
	}
	for (size_t i = 0; i < sizeof r; i++)
		tail[i] = abc[r[i] % (sizeof abc - 1)];
	tail[6] = '\0';
	snprintf(buf, len, "%.200s.%s.tmp", s->base, tail);
}

/* A new private directory, made and checked by the safe-file service
 * (tly_safe_mkdir_at): one someone swapped in under the name between the
 * mkdir and the open (a link, their directory, or a directory of this
 * user moved there) is left alone as it is, and another name made. */
static int make_private(struct tly_out_stage *s)
{
	char name[256];
	struct stat st;
	int swaps = 0, fd;

	for (int i = 0; i < 4 * TRIES && swaps < TRIES; i++) {
		random_name(s, name, sizeof name);
		fd = tly_safe_mkdir_at(s->dirfd, name);
		if (fd == -EEXIST)
			continue;
		if (fd == -EXDEV) {
			swaps++;
			continue;
		}
		if (fd < 0)
			return fd;
		if (fstat(fd, &st) != 0) {
			close(fd);
			return -EIO;
		}
		s->privfd = fd;
		s->ino = (unsigned long long)st.st_ino;
		snprintf(s->priv, sizeof s->priv, "%s", name);
		return 0;
	}
	return -EXDEV;
}

static int make_file(struct tly_out_stage *s, long long reserve)
{
	mode_t um = umask(0);
	struct stat st;
	int fd, rc = 0;

	umask(um);
	fd = tly_safe_file_at(s->privfd, s->base, O_RDWR, 0666 & ~um, 0);
	if (fd < 0)
		return fd;
	if (fchmod(fd, (0666 & ~um) & ~(mode_t)S_IWOTH) != 0 || fstat(fd, &st) != 0)
		rc = -errno;
	s->fino = (unsigned long long)st.st_ino;
	if (!rc && reserve > 0) {
		rc = -posix_fallocate(fd, 0, (off_t)reserve);
		if (rc == -EOPNOTSUPP || rc == -EINVAL)
			rc = 0;   /* the file system cannot tell in advance */
		if (ftruncate(fd, 0) != 0 && !rc)
			rc = -errno;
	}
	close(fd);
	return rc;
}

int tly_out_stage_create(struct tly_out_stage *s, const char *path, long long reserve)
{
	int rc;

	reset(s);
	rc = split(s, path);
	if (!rc)
		rc = make_private(s);
	if (!rc)
		rc = make_file(s, reserve);
	if (rc) {
		tly_out_stage_discard(s);
		return rc;
	}
	h5_name(s);
	inflight_set(s);
	return 0;
}

int tly_out_stage_join(struct tly_out_stage *s, const char *path, const char *priv, unsigned long long ino)
{
	int rc;

	reset(s);
	rc = split(s, path);
	if (!rc)
		rc = open_private(s, priv);
	if (!rc && s->ino != ino)
		rc = -EXDEV;   /* not the directory rank 0 made */
	if (rc) {
		tly_out_stage_close(s);
		return rc;
	}
	h5_name(s);
	return 0;
}

int tly_out_stage_check(const struct tly_out_stage *s)
{
	struct stat st;

	if (fstatat(s->privfd, s->base, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || (unsigned long long)st.st_ino != s->fino)
		return -EXDEV;
	return 0;
}

/* `<stem>.N.h5` for `name` = `<stem>.h5` (`<stem>.N.trace` for a
 * `.trace`, else `<name>.N`), within 255. */
static void numbered(const char *name, int n, char *buf, size_t len)
{
	size_t l = strlen(name), x = 0;

	if (l > 3 && !strcmp(name + l - 3, ".h5"))
		x = 3;
	else if (l > 6 && !strcmp(name + l - 6, ".trace"))
		x = 6;
	if (x)
		snprintf(buf, len, "%.*s.%d%s", (int)(l - x > 240 ? 240 : l - x), name, n, name + l - x);
	else
		snprintf(buf, len, "%.240s.%d", name, n);
}

/* The private directory, when its name is still ours (a swapped name is
 * left alone: rmdir would act on whatever the name now is). */
static void remove_private(struct tly_out_stage *s)
{
	if (s->priv[0])
		(void)tly_safe_remove_at(s->dirfd, s->priv, 1, s->ino);
}

/* The rename under the mark PUBLISHING; returns the name taken in `name`. */
static int move_into_place(struct tly_out_stage *s, int replace, char *name, size_t len)
{
	int rc = -EEXIST;

	snprintf(name, len, "%s", s->base);
	if (replace)
		rc = tly_safe_move_at(s->privfd, s->base, s->dirfd, name, 1);
	for (int n = 1; !replace && rc == -EEXIST && n < 10000; n++) {
		rc = tly_safe_move_at(s->privfd, s->base, s->dirfd, name, 0);
		if (rc == -EEXIST)
			numbered(s->base, n, name, len);
	}
	return rc;
}

/* From the mark to the file in place (or back to WRITING when the rename
 * failed), SIGALRM waits on this thread: the exit() watchdog that
 * interrupted the writer there could neither let the rename end nor take
 * the file (it waited 2 s, said nothing, left the `.tmp`); after it the
 * watchdog finds the file in place (tly_out_stage_abandon: 2, its name). */
int tly_out_stage_publish(struct tly_out_stage *s, const char *path, int replace, char *final, size_t len)
{
	char name[256];
	size_t keep = strlen(path) - strlen(s->base);   /* path's directory part, as given */
	sigset_t alrm, was;
	int rc, st = PUBLISHING;

	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, &was);
	rc = inflight_end(s, 1);
	if (rc) {   /* the exit deadline moved it out as <stem>.unfinished.h5 */
		pthread_sigmask(SIG_SETMASK, &was, NULL);
		snprintf(final, len, "%s/%s", s->dir, inflight.unfinished);
		return rc;
	}
	rc = move_into_place(s, replace, name, sizeof name);
	snprintf(final, len, "%.*s%s", (int)keep, path, name);
	if (rc == 0) {
		if (inflight.ino == s->ino)
			snprintf(inflight.final, sizeof inflight.final, "%s", name);
		atomic_fetch_add(&inflight.published, 1);
		remove_private(s);
		tly_out_stage_close(s);
	} else if (inflight.ino == s->ino) {
		atomic_compare_exchange_strong(&inflight.state, &st, WRITING);   /* the deadline may take it */
	}
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	return rc;
}

void tly_out_stage_discard(struct tly_out_stage *s)
{
	if (inflight_end(s, 0) == -ETIMEDOUT) {
		tly_out_stage_close(s);   /* the deadline's, unfinished: left as it said */
		return;
	}
	if (s->privfd >= 0)
		(void)tly_safe_remove_at(s->privfd, s->base, 0, s->fino);
	if (s->dirfd >= 0)
		remove_private(s);
	tly_out_stage_close(s);
}

void tly_out_stage_close(struct tly_out_stage *s)
{
	(void)inflight_end(s, 0);
	if (s->privfd >= 0)
		close(s->privfd);
	if (s->dirfd >= 0)
		close(s->dirfd);
	s->privfd = s->dirfd = -1;
}

int tly_out_stage_current(struct tly_out_stage *s)
{
	char via[64], now[4096];
	const char *slash;
	ssize_t n;

	snprintf(via, sizeof via, "/proc/self/fd/%d", s->privfd);
	n = readlink(via, now, sizeof now - 1);
	if (n <= 0)
		return -errno;
	now[n] = '\0';
	slash = strrchr(now, '/');
	if (!slash || strlen(slash + 1) >= sizeof s->priv)
		return -ENAMETOOLONG;
	snprintf(s->priv, sizeof s->priv, "%s", slash + 1);
	return 0;
}

const char *tly_out_stage_where(const struct tly_out_stage *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s/%s", s->dir, s->priv, s->base);
	return buf;
}

/* ---- a private directory alone: an archive of several files ---- */
int tly_out_stage_mkdir(struct tly_out_stage *s, const char *path)
{
	int rc;

	reset(s);
	rc = split(s, path);
	if (!rc)
		rc = make_private(s);
	if (rc) {
		tly_out_stage_close(s);
		return rc;
	}
	h5_name(s);
	return 0;
}

const char *tly_out_stage_dirpath(const struct tly_out_stage *s, char *buf, size_t len)
{
	struct stat st;
	char via[64];

	snprintf(via, sizeof via, "/proc/self/fd/%d", s->privfd);
	if (stat(via, &st) == 0 && (unsigned long long)st.st_ino == s->ino)
		snprintf(buf, len, "%s", via);
	else   /* no /proc: by name, a directory nobody else can enter */
		snprintf(buf, len, "%s/%s", s->dir, s->priv);
	return buf;
}

int tly_out_stage_publish_dir(struct tly_out_stage *s, const char *path, char *final, size_t len)
{
	char name[256];
	size_t keep = strlen(path) - strlen(s->base);
	struct stat st;
	int rc = -EEXIST;

	(void)tly_out_stage_current(s);   /* renamed by a neighbour, still ours */
	if (fstatat(s->dirfd, s->priv, &st, AT_SYMLINK_NOFOLLOW) != 0 || (unsigned long long)st.st_ino != s->ino)
		return -EXDEV;
	snprintf(name, sizeof name, "%s", s->base);
	for (int n = 1; rc == -EEXIST && n < 10000; n++) {
		rc = tly_safe_move_at(s->dirfd, s->priv, s->dirfd, name, 0);
		if (rc == -EEXIST)
			numbered(s->base, n, name, sizeof name);
	}
	if (rc == 0 && (fstatat(s->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0
			|| (unsigned long long)st.st_ino != s->ino))
		rc = -EXDEV;   /* swapped between the check and the move: what moved is not ours */
	if (rc == 0) {   /* in place: readable as a file would be (0777 & ~umask, never o+w) */
		mode_t um = umask(0);

		umask(um);
		(void)fchmod(s->privfd, (0777 & ~um & ~(mode_t)S_IWOTH) | (st.st_mode & S_ISGID));
	}
	snprintf(final, len, "%.*s%s", (int)keep, path, rc == 0 ? name : s->priv);
	return rc;
}
