/*
 * rt_job_dir.c - which pieces in a job directory (rt_job.c) belong to
 * this job: the pieces of an earlier job of the same id are never merged,
 * and pieces of two jobs that share an id are never mixed.
 *
 * A process writes its piece under a name of its own (p<pid>-rank<r>.h5)
 * and then moves it to rank<r>.h5 without replacing (safe_file.c), never
 * replacing a name: a second process claiming the same rank of the same id finds the
 * name taken.  Then the id does not tell two jobs apart (two jobs started
 * directly by one process, with the same RANK/WORLD_SIZE): the directory
 * is marked `ambiguous`, nothing of it is merged, and every piece stays
 * readable under its own name.
 *
 * A piece, or a marker, whose file was last written before this rank's
 * first process below the launcher started (the wrapper script that runs
 * the program, or the program: the launcher starts them together) belongs
 * to an earlier job: it is moved aside as stale-<inode>-<name>, said once,
 * and never merged.  The program's own start is no such mark: behind a
 * wrapper, one rank's program may start after another's has ended
 * (rt_jobs_wrapper, mode child, at load 3 on 2 cores: rank 0's piece was
 * taken for stale and no job file was written).
 */
#include "runtime/rt.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tally_shared.h"

/* Clock ticks since boot on the real-time clock (file times). */
static double ticks_real(unsigned long long ticks)
{
	struct timespec real, boot;
	long hz = sysconf(_SC_CLK_TCK);

	if (!ticks || hz <= 0 || clock_gettime(CLOCK_REALTIME, &real) || clock_gettime(CLOCK_BOOTTIME, &boot))
		return 0;   /* unknown: nothing is taken as stale */
	return (double)(real.tv_sec - boot.tv_sec) + (double)(real.tv_nsec - boot.tv_nsec) / 1e9
		+ (double)ticks / (double)hz;
}

/* Names the protocol owns: rank<digits>.h5, p<pid>-rank<digits>.h5 and
 * the two markers. */
static int is_ours(const char *name, int *piece)
{
	size_t n = strlen(name);

	*piece = (!strncmp(name, "rank", 4) || (name[0] == 'p' && strstr(name, "-rank")))
		&& n > 7 && !strcmp(name + n - 3, ".h5");
	return *piece || !strcmp(name, "merging") || !strcmp(name, "ambiguous");
}

/* The job directory, opened and checked on its descriptor (a real
 * directory of this user that nobody else can enter: rt_exit.c makes it
 * 0700), so every *at() call below works inside it, whatever a neighbour
 * does to its name. */
static DIR *open_dir(const char *dir)
{
	int fd = tly_safe_open_dir(dir);   /* no link but the process's own /proc/self/fd/N */
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))) {
		close(fd);
		fd = -1;
	}
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d && fd >= 0)
		close(fd);
	return d;
}

int tly_rt_job_sweep(const char *dir, unsigned long long since_ticks)
{
	double since = ticks_real(since_ticks);
	DIR *d = since > 0 ? open_dir(dir) : NULL;
	struct dirent *e;
	struct stat st;
	char aside[400];
	int moved = 0, piece;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!is_ours(e->d_name, &piece) || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if ((double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9 >= since)
			continue;
		if (!piece) {
			(void)tly_safe_remove_at(dirfd(d), e->d_name, 0, (unsigned long long)st.st_ino);
			continue;
		}
		snprintf(aside, sizeof aside, "stale-%llu-%s", (unsigned long long)st.st_ino, e->d_name);
		moved += tly_safe_move_at(dirfd(d), e->d_name, dirfd(d), aside, 0) == 0;
	}
	closedir(d);
	if (moved)
		tly_rt_log(1, "%d piece(s) in %s were written before this rank was started, by an earlier job of the "
			   "same launcher: kept there as stale-*.h5 and not merged", moved, dir);
	return moved;
}

/* rank<r>.h5 for the piece `own`, never replacing one (the safe-file
 * service's move: RENAME_NOREPLACE, or link(2) where the file system
 * lacks it). */
static int take_name(int dfd, const char *own, const char *name)
{
	int rc = tly_safe_move_at(dfd, own, dfd, name, 0);   /* dfd: the checked job directory */

	if (rc == 0)
		return 0;
	errno = -rc;
	return -1;
}

int tly_rt_job_place(const char *dir, const char *own, int rank)
{
	DIR *d = open_dir(dir);
	char name[32];
	int fd, err = 0;

	if (!d)
		return -1;
	snprintf(name, sizeof name, "rank%05d.h5", rank);
	if (take_name(dirfd(d), own, name) != 0)
		err = errno;
	if (err == EEXIST && (fd = tly_safe_file_at(dirfd(d), "ambiguous", O_WRONLY, 0600, 1)) >= 0)
		close(fd);
	closedir(d);
	return err == EEXIST ? 1 : err ? -1 : 0;
}

int tly_rt_job_is_ambiguous(const char *dir)
{
	DIR *d = open_dir(dir);
	struct stat st;
	int yes;

	if (!d)
		return 0;
	yes = fstatat(dirfd(d), "ambiguous", &st, AT_SYMLINK_NOFOLLOW) == 0;
	closedir(d);
	return yes;
}
