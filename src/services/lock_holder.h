/*
 * lock_holder.h - who holds a lock file (services/lock_file.c).
 */
#ifndef TALLY_LOCK_HOLDER_H
#define TALLY_LOCK_HOLDER_H

/* The pid of the process holding an flock on fd's file, from the kernel's
 * table (/proc/locks), not from the file's text (the last owner's line
 * stays there until the next owner overwrites it); 0 when nobody holds
 * one, -1 when the table cannot be read. */
long tly_lock_holder(int fd);

#endif /* TALLY_LOCK_HOLDER_H */
