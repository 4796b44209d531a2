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

/* Makes `dir` (mode 0700; its parent too, 0700, when absent) or takes
 * the one there, checked on the descriptor opened after the mkdir, never
 * by name: a real directory of this user nobody else can write to (a
 * link, a directory of another user or one open to others put under the
 * name is refused, left as it is, never chmodded).  The directory's
 * descriptor (>= 0: files in it through the *_at calls below), or -errno
 * (-EPERM when it is not the user's own). */
int tly_safe_private_dir(const char *dir);

/* As tly_safe_create/commit/open_own, relative to a directory descriptor
 * (tly_safe_private_dir's): `name` a plain name in it.  The temporary is
 * `<name>.XXXXXX.tmp`, made O_EXCL|O_NOFOLLOW 0600; the commit renames it
 * to `name` by the descriptor; the open never follows a link, never
 * blocks on a FIFO and takes only this user's regular file. */
FILE *tly_safe_create_at(int dirfd, const char *name, char *tmp, size_t len);
int tly_safe_commit_at(FILE *f, int dirfd, const char *tmp, const char *name, int ok);
FILE *tly_safe_open_own_at(int dirfd, const char *name);

#endif
