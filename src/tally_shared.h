/*
 * tally_shared.h - the one internal header the measurement runtime
 * (wrappers/) may include besides the public ones (papi.h, tally_gpu.h):
 * what the library and the runtime truly share.  Everything else of
 * src/core stays private to the library; the include rules are checked
 * by testsuite/layout/check_includes.py (docs/DESIGN.md).
 *
 *   - the project's one hash (FNV-1a, 64 bits): region names, pass
 *     schedules, GPU configuration images;
 *   - the calling thread's last-error detail, the sentence behind a
 *     PAPI_E* code (src/services/err_detail.c);
 *   - the cycle-counter rate the library converts time with
 *     (src/core/sysinfo.c), so the runtime's clock agrees with it;
 *   - the settings: the one table (settings/settings.def) and its one
 *     parser (settings/settings.c), the only reader of the environment.
 */
#ifndef TALLY_SHARED_H
#define TALLY_SHARED_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TLY_FNV_BASIS 14695981039346656037ULL

/* Chain calls to hash several pieces, starting from TLY_FNV_BASIS. */
static inline uint64_t tly_fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *b = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/* This thread's detail string of its last failure ("" when none). */
const char *tly_err_detail(void);

/*
 * Cycle-counter rate in MHz used to convert time to cycles: CNTFRQ_EL0 on
 * aarch64, the TSC calibrated once against CLOCK_MONOTONIC on x86-64
 * (~10 ms on first use), 1000 (one cycle per ns) elsewhere.
 */
double tly_cyc_mhz(void);

/* ---- one perf counter (services/perf_counter.h, which declares the rest)
 * perf_event_open(2) through syscall(2); -1 with errno on failure: the
 * runtime's clock opens its page of the kernel's TSC conversion with it. */
struct perf_event_attr;
int tly_perf_open(struct perf_event_attr *attr, long pid, int cpu, int group_fd, unsigned long flags);

/* ---- settings: the table's ids and its parser (settings/settings.h) */
#include "settings/settings.h"

/* ---- lock files (services/lock_file.c) ----------------------------------
 * Opens (creating it 0600 when absent, never through a link, never
 * truncated) the lock file `name` in the user's private directory
 * $TMPDIR/tally-<uid> (else /tmp/tally-<uid>; made 0700, used only when it
 * is a real directory of this user closed to others).  The descriptor, or
 * -1 when there is none to use, or -2 with *other_uid when the file
 * belongs to another user (only root can have put it there). */
int tly_private_lock_open(const char *name, long *other_uid);
/* The pid of the process holding an flock on fd's file, from the kernel's
 * table (/proc/locks); 0 when nobody holds one, -1 when the table cannot
 * be read. */
long tly_lock_holder(int fd);

/* ---- directories of Tally's own (services/safe_file.c) ------------------
 * Makes `name` in the directory open on `dirfd` (mode 0700 with the
 * sticky bit as the mkdir's mark, cleared once taken) and opens it
 * without following a link; the descriptor only when what the name holds
 * is the directory this call made: this user's, with the mark, closed to
 * others, empty, born at the mkdir (a directory someone moved in under
 * the name between the mkdir and the open is left alone, never adopted
 * nor changed).
 * -EEXIST when the name is taken, -EXDEV for a swapped one, else -errno. */
int tly_safe_mkdir_at(int dirfd, const char *name);
/* The directory `dir` opened (O_DIRECTORY|O_NOFOLLOW; a link as its last
 * component only when this user, root or the parent's owner made it).
 * The descriptor, or -errno. */
int tly_safe_open_dir(const char *dir);
/* A directory shared by Tally's processes of this user (a job directory,
 * $TMPDIR/tally-<uid>): `name` made in `dirfd` (0700) when absent, opened
 * O_DIRECTORY|O_NOFOLLOW and used only when the descriptor shows a real
 * directory of this user with none of the mode bits `closed` (022: nobody
 * else writes; 077: nobody else enters).  Never checked by name: what the
 * name holds after the mkdir is what is checked and used.  The
 * descriptor, or -errno (-EPERM: a link, another owner, open to others). */
int tly_safe_own_dir_at(int dirfd, const char *name, mode_t closed);
/* The same for a path: its parent opened with tly_safe_open_dir. */
int tly_safe_own_dir(const char *path, mode_t closed);
/* Creates `name` in `dirfd` (O_CREAT|O_EXCL|O_NOFOLLOW, `mode` never
 * o+w; `flags` gives the access mode and O_APPEND, never O_TRUNC); with
 * `reuse` an existing file is opened instead, when it is a regular file
 * of this user (a lock file).  The descriptor, or -errno. */
int tly_safe_file_at(int dirfd, const char *name, int flags, mode_t mode, int reuse);
/* Moves `from` (in `fromfd`) to `to` (in `tofd`); with `replace` 0 never
 * replacing anything (RENAME_NOREPLACE, or where the file system lacks it
 * link + unlink for a file, a check + rename for a directory).  0 or -errno. */
int tly_safe_move_at(int fromfd, const char *from, int tofd, const char *to, int replace);
/* Removes `name` in `dirfd` (a directory when `dir`; then only an empty
 * one), when `ino` is 0 or still the inode the name holds.  0 or -errno. */
int tly_safe_remove_at(int dirfd, const char *name, int dir, unsigned long long ino);

#endif /* TALLY_SHARED_H */
