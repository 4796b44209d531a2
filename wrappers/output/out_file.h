/*
 * out_file.h - where an output file may be created, and how (docs/runtime.md,
 * "Output files").  A measurement runs inside other people's jobs, often as
 * root, with /tmp shared by everyone: every file is created under a unique
 * temporary name with O_CREAT|O_EXCL|O_NOFOLLOW (so a planted link or file
 * is never opened), never world-writable, checked to be the same inode
 * after HDF5 opened it, and renamed to its final name without replacing
 * an existing file unless TALLY_OUTPUT_REPLACE asks for it.
 */
#ifndef TALLY_OUT_FILE_H
#define TALLY_OUT_FILE_H

#include <stddef.h>
#include <sys/stat.h>

/* A per-user private directory, $TMPDIR/tally-<uid> (else /tmp/tally-<uid>),
 * created 0700 and checked to be a real directory owned by this user with
 * no group or other access.  0, or -1 with a logged reason. */
int tly_out_private_dir(char *buf, size_t len);

/* Creates `<path>.XXXXXX.tmp` exclusively (mode 0666 & ~umask, never
 * o+w); fills `tmp` and the inode in `st`.  With `reserve` > 0 the space is
 * allocated first and released (a full disk is known before HDF5 starts).
 * Returns 0, -ENOSPC when the space is not there, or another -errno. */
int tly_out_tmp_create(const char *path, long long reserve, char *tmp, size_t len, struct stat *st);

/* 0 when `tmp` is still the regular file tly_out_tmp_create made. */
int tly_out_tmp_verify(const char *tmp, const struct stat *st);

/* Renames `tmp` to `path`, or when `path` exists and `replace` is 0, to
 * the first free `<stem>.N.h5` (N = 1, 2, ...); the name used goes to
 * `final`.  0, or -errno (the data then stays in `tmp`). */
int tly_out_publish(const char *tmp, const char *path, int replace, char *final, size_t len);

#endif
