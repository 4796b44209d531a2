/*
 * th_file.h - small-file helpers of the tests that plant files and links:
 * the whole text of a small file without following a link, and removal of
 * a scratch tree (links removed, never followed).
 */
#ifndef TH_FILE_H
#define TH_FILE_H

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static int th_rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path);
}

/* Removes the tree at dir, depth first; links are removed, not followed
 * (no shell, whatever the name holds).  0, or -1 when a part stays. */
static inline int th_rm_tree(const char *dir)
{
	return nftw(dir, th_rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

/* The whole of a small file (up to 255 bytes), "" when unreadable; a
 * static buffer, valid until the next call. */
static inline const char *th_file_text(const char *path)
{
	static char buf[256];
	int fd = open(path, O_RDONLY | O_NOFOLLOW);
	ssize_t r = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;

	buf[r > 0 ? r : 0] = 0;
	if (fd >= 0)
		close(fd);
	return buf;
}

#endif
