/*
 * lock_file.c - lock files in the user's private directory: one process
 * per physical GPU profiles (wrappers/gpu/gpu_share.c) or samples
 * (components/cuda/pcsamp/cuda_pcsamp_share.c), claimed with an flock the
 * kernel drops when the owner exits.  The directory is $TMPDIR/tally-<uid>
 * (else /tmp/tally-<uid>), created 0700 and used only when it is a real
 * directory of this user that nobody else can enter; the file is opened
 * without following a link and never truncated, so nobody else can plant
 * a link there to have a file destroyed.  Who holds a lock is asked of the
 * kernel (/proc/locks), not of the file's text, which keeps the last
 * owner's line until the next owner overwrites it.
 */
#include <errno.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/sysmacros.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tally_shared.h"

/* The private directory, opened: made 0700 when absent, used only when
 * the descriptor (not the name, which a neighbour who can write $TMPDIR
 * may swap after any check) is a real directory of this user that nobody
 * else can enter; the lock file is then made relative to it. */
static int private_dir(void)
{
	const char *base = tly_env_raw("TMPDIR");
	char buf[480];
	int fd;

	if (!base || base[0] != '/')
		base = "/tmp";
	if ((size_t)snprintf(buf, sizeof buf, "%s/tally-%ld", base, (long)geteuid()) >= sizeof buf)
		return -1;
	fd = tly_safe_own_dir(buf, 077);   /* safe_file.c: made, then checked on its descriptor */
	return fd < 0 ? -1 : fd;
}

int tly_private_lock_open(const char *name, long *other_uid)
{
	struct stat st;
	int dfd, fd;

	if (!name || !*name || strchr(name, '/') || other_uid == NULL || (dfd = private_dir()) < 0)
		return -1;
	fd = tly_safe_file_at(dfd, name, O_RDWR, 0600, 1);   /* never truncated, never through a link */
	if (fd == -EPERM && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)
	    && st.st_uid != geteuid()) {
		*other_uid = (long)st.st_uid;
		fd = -2;
	}
	close(dfd);
	return fd < 0 && fd != -2 ? -1 : fd;
}

/* One line of /proc/locks: "N: FLOCK  ADVISORY  WRITE PID MAJ:MIN:INODE ..."
 * (major and minor in hex); "N: -> ..." lines are waiters. */
static long holder_of_line(const char *line, unsigned maj, unsigned min, unsigned long ino)
{
	char kind[16], adv[16], mode[16];
	unsigned a, b;
	unsigned long i;
	long pid;

	if (strstr(line, "->"))
		return 0;
	if (sscanf(line, "%*d: %15s %15s %15s %ld %x:%x:%lu", kind, adv, mode, &pid, &a, &b, &i) != 7)
		return 0;
	return !strcmp(kind, "FLOCK") && a == maj && b == min && i == ino && pid > 0 ? pid : 0;
}

long tly_lock_holder(int fd)
{
	struct stat st;
	char line[256];
	long pid = 0;
	FILE *f;

	if (fstat(fd, &st) != 0 || !(f = fopen("/proc/locks", "re")))
		return -1;
	while (!pid && fgets(line, sizeof line, f))
		pid = holder_of_line(line, major(st.st_dev), minor(st.st_dev), (unsigned long)st.st_ino);
	fclose(f);
	return pid;
}
