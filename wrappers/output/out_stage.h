/*
 * out_stage.h - where an output file is written before it is in place
 * (docs/runtime.md, "Output files"; docs/DESIGN.md).
 *
 * A file is never written under a name others can change.  Rank 0 (or
 * the one process) makes a private directory of Tally's own inside the
 * output directory (mkdirat 0700, opened O_NOFOLLOW and checked by fstat
 * to be this user's directory), creates the file in it with O_EXCL, and
 * HDF5 opens it as /proc/self/fd/<directory's fd>/<name>: the path goes
 * through the descriptor, not through any name in the shared directory, so
 * swapping names there (a link for the directory or the file) redirects
 * nothing.  The other ranks of a job open the same directory by name and
 * check it is the inode rank 0 made.  The complete file is renamed into
 * the output directory by descriptors (renameat2 RENAME_NOREPLACE), never
 * through a link, and the private directory removed.
 */
#ifndef TALLY_OUT_STAGE_H
#define TALLY_OUT_STAGE_H

#include <stddef.h>

struct tly_out_stage {
	int dirfd, privfd;            /* the output directory, the private one in it */
	char dir[1024];               /* the output directory as named */
	char priv[256];               /* the private directory's name in it */
	char base[256];               /* the file's name */
	char h5[320];                 /* the name HDF5 opens */
	unsigned long long ino, fino; /* inodes of the private directory and the file */
};

/* Rank 0 / a serial writer: the private directory and, in it, the file
 * (mode 0666 & ~umask, never o+w).  With `reserve` > 0 the space is
 * allocated first and released (a full disk is known before HDF5 starts).
 * 0, or -errno (-ENOSPC: no room) with nothing left behind. */
int tly_out_stage_create(struct tly_out_stage *s, const char *path, long long reserve);
/* Another rank: the directory rank 0 made (`priv`, inode `ino`).  0 or -errno. */
int tly_out_stage_join(struct tly_out_stage *s, const char *path, const char *priv, unsigned long long ino);
/* The private directory's name now (renamed within the output directory
 * by someone who may write there, it is still ours): 0 or -errno. */
int tly_out_stage_current(struct tly_out_stage *s);
/* 0 when the file is still the one created (after HDF5 opened it). */
int tly_out_stage_check(const struct tly_out_stage *s);
/* Renames the file into the output directory as `path`'s name, or when
 * that exists and `replace` is 0 as the first free `<stem>.N.h5`; the
 * name used goes to `final`; the private directory is removed.  0 or
 * -errno (the file then stays where tly_out_stage_where says). */
int tly_out_stage_publish(struct tly_out_stage *s, const char *path, int replace, char *final, size_t len);
/* Removes the file and the private directory (a failed write leaves no
 * space taken). */
void tly_out_stage_discard(struct tly_out_stage *s);
/* Closes the descriptors, leaving what is there. */
void tly_out_stage_close(struct tly_out_stage *s);
/* A private directory alone, for an archive of several files (the
 * trace): made as for a file, named `<name>.XXXXXX.tmp` after `path`'s
 * name; other ranks join it with tly_out_stage_join.  0 or -errno. */
int tly_out_stage_mkdir(struct tly_out_stage *s, const char *path);
/* The name under which the archive's files are made: the directory's
 * descriptor (/proc/self/fd/N), or by name where /proc is missing. */
const char *tly_out_stage_dirpath(const struct tly_out_stage *s, char *buf, size_t len);
/* Moves the private directory, whole, into place as `path`'s name, or
 * when that exists as the first free `<stem>.N.trace` (`<name>.N`):
 * never replacing anything, never moving what is not the directory
 * made.  The name used (or the private one, on failure) goes to
 * `final`.  0 or -errno; the descriptors stay open (tly_out_stage_close). */
int tly_out_stage_publish_dir(struct tly_out_stage *s, const char *path, char *final, size_t len);
/* The exit deadline (TALLY_EXIT_TIMEOUT) passed while this process was
 * writing a file alone: the file, unfinished, is moved out of the private
 * directory as `<stem>.unfinished.h5` beside where it was going (never
 * replacing anything) and the private directory removed; a publish that
 * comes later does nothing.  Async-signal-safe (system calls only).
 * 1 when moved (its name in `where`), 2 when the write ended meanwhile
 * (the file is in place, its name in `where`), 3 when an earlier
 * deadline took it, 0 when no file was being written, or -errno (it
 * stays in the private directory: `where`). */
int tly_out_stage_abandon(char *where, size_t len);
/* "<dir>/<private directory>/<file>" for messages. */
const char *tly_out_stage_where(const struct tly_out_stage *s, char *buf, size_t len);

#endif
