/*
 * procfs.h - small readers for /proc and /sys text files.
 *
 * These never allocate more than the caller's buffer and never keep
 * state, so any subsystem may call them at any time.
 */
#ifndef TALLY_CORE_PROCFS_H
#define TALLY_CORE_PROCFS_H

#include <stddef.h>

/*
 * Read up to len-1 bytes of `path` into buf and NUL-terminate it.
 * Returns the number of bytes read, or a negative PAPI_E* code
 * (the error detail is NOT set: a missing /sys file is often normal).
 */
long tly_read_text(const char *path, char *buf, size_t len);
/* First line of `path` without its newline; negative PAPI_E* on failure. */
int tly_read_line(const char *path, char *buf, size_t len);
/* Integer in `path` (decimal or 0x-hex); `dflt` when absent or unreadable. */
long long tly_read_ll(const char *path, long long dflt);
/*
 * Value of the first "key<spaces/tabs>: value" or "key: value" line in
 * `text` (as in /proc/cpuinfo and /proc/self/status), copied to out with
 * surrounding blanks trimmed.  Returns PAPI_OK or PAPI_ENOEVNT when absent.
 */
int tly_kv_find(const char *text, const char *key, char *out, size_t len);
/* Number of CPUs in a Linux cpu list such as "0-3,8,10-11"; -1 if malformed. */
int tly_cpulist_count(const char *list);
/* Size such as "48K", "2048K", "1M", "512" in bytes; -1 if malformed. */
long long tly_parse_size(const char *text);

#endif /* TALLY_CORE_PROCFS_H */
