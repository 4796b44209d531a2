/*
 * safe_file.h - creating and reading the library's own files safely: on a
 * shared node a name in /tmp or next to the output may be a link or a file
 * someone else planted.  Files are written under a unique temporary name
 * made with O_CREAT|O_EXCL|O_NOFOLLOW (mode 0600) and renamed into place;
 * directories are the user's own, created 0700; files are read only when
 * they are regular files of this user, opened without following a link.
 */
#ifndef TALLY_SAFE_FILE_H
#define TALLY_SAFE_FILE_H

#include <stddef.h>
#include <stdio.h>

/* Creates `<path>.XXXXXX.tmp` (mode 0600) and opens it for writing; its
 * name goes to `tmp`.  NULL with errno set on failure. */
FILE *tly_safe_create(const char *path, char *tmp, size_t len);

/* Closes `f` and renames `tmp` to `path` (replacing it; a link there is
 * replaced, not followed) when `ok` and the close succeeded; otherwise the
 * temporary file is removed.  0, or -1 with errno set. */
int tly_safe_commit(FILE *f, const char *tmp, const char *path, int ok);

/* Opens `path` for reading when it is a regular file owned by this user,
 * without following a link.  NULL with errno set otherwise (EPERM for a
 * file of another user or not a regular file). */
FILE *tly_safe_open_own(const char *path);

/* Makes `dir` (mode 0700; its parent too, 0700, when absent) and checks it
 * is a real directory of this user that nobody else can write to.  0, or
 * -1 with errno set (EPERM when it is not the user's own). */
int tly_safe_private_dir(const char *dir);

#endif
