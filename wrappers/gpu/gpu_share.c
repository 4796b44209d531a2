/*
 * gpu_share.c - one profiling process per physical GPU.  A GPU's counters
 * serve one process at a time: a second process starting the Range
 * Profiler on the same GPU gets CUPTI_ERROR_HARDWARE_BUSY, and which one
 * wins is a race.  So the first process to bind a context on a GPU claims
 * it: an flock on $TMPDIR/tally-<uid>/gpu-<UUID>.lock holding its pid and
 * rank; the kernel drops the lock when the owner exits, however it exits.
 * The claim is made when the context is bound (its first launch), so it
 * names the GPU the process really uses, whatever CUDA_VISIBLE_DEVICES,
 * cudaSetDevice or the launcher did, and needs no MPI (torchrun, srun).
 * The lock lives in the user's private directory (mode 0700, checked), is
 * opened without following links and never truncated.
 */
#include "gpu/gpu_rt.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tally_shared.h"

/* $TMPDIR/tally-<uid> (else /tmp/tally-<uid>): created 0700, used only when
 * it is a real directory of this user that nobody else can enter. */
static int private_dir(char *buf, size_t len)
{
	const char *base = tly_env_raw("TMPDIR");
	struct stat st;

	if (!base || base[0] != '/')
		base = "/tmp";
	snprintf(buf, len, "%s/tally-%ld", base, (long)geteuid());
	if (mkdir(buf, 0700) != 0 && errno != EEXIST)
		return -1;
	if (lstat(buf, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
		return -1;
	return 0;
}

/* The lock file of `uuid` (letters, digits and '-' only), opened without
 * following links; -1 when there is none to use. */
static int open_lock(const char *uuid)
{
	char dir[480], path[600], key[64];
	struct stat st;
	size_t k = 0;
	int fd;

	for (const char *c = uuid; *c && k < sizeof key - 1; c++)
		key[k++] = (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ? *c : '-';
	key[k] = '\0';
	if (!k || private_dir(dir, sizeof dir) != 0)
		return -1;
	snprintf(path, sizeof path, "%s/gpu-%s.lock", dir, key);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return -1;
	}
	return fd;
}

/* "pid rank" as the owner wrote it; the owner may not have written yet. */
static void read_owner(int fd, long *pid, int *rank)
{
	char buf[64] = "";
	ssize_t r;

	for (int tries = 0; tries < 50; tries++) {   /* at most 50 ms for the owner's write */
		r = pread(fd, buf, sizeof buf - 1, 0);
		if (r > 0 && sscanf(buf, "%ld %d", pid, rank) == 2)
			return;
		usleep(1000);
	}
	*pid = 0;
	*rank = -1;
}

int tly_gpu_share_claim(const char *uuid, int *owner_rank, long *owner_pid)
{
	char line[48];
	int fd;

	*owner_rank = tly_rt_proc()->rank;
	*owner_pid = (long)getpid();
	if (!uuid || !*uuid || (fd = open_lock(uuid)) < 0)
		return 1;   /* no way to coordinate: profile */
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		read_owner(fd, owner_pid, owner_rank);
		close(fd);
		return 0;
	}
	/* fixed width: overwrites the last owner's line without truncating;
	 * the descriptor stays open (the lock) until the process ends */
	snprintf(line, sizeof line, "%-20ld %-11d\n", (long)getpid(), tly_rt_proc()->rank);
	if (pwrite(fd, line, strlen(line), 0) < 0)
		tly_rt_log(2, "GPU %s: the claim's owner line was not written", uuid);
	return 1;
}
