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
#include "gpu/gpu_share.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>
#include "tally_shared.h"
#include "runtime/rt.h"

/* The lock file of `uuid` (letters, digits and '-' only) in the user's
 * private directory (src/services/lock_file.c); -1 when there is none to
 * use (one of another user included). */
static int open_lock(const char *uuid)
{
	char name[96], key[64];
	size_t k = 0;
	long other;
	int fd;

	for (const char *c = uuid; *c && k < sizeof key - 1; c++)
		key[k++] = (*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ? *c : '-';
	key[k] = '\0';
	if (!k)
		return -1;
	snprintf(name, sizeof name, "gpu-%s.lock", key);
	fd = tly_private_lock_open(name, &other);
	return fd >= 0 ? fd : -1;
}

/* The owner: the live holder of the lock, asked of the kernel, and its
 * rank from the "pid rank" line it writes once it holds the lock.  The
 * line is the last owner's until the new one overwrites it (the file is
 * never truncated), so it counts only when its pid is the holder's; a
 * holder that has not written yet is waited for (at most 200 ms), then
 * named by its pid alone (rank -1).  Without the kernel's table (-1), a
 * line whose pid is alive counts. */
static void read_owner(int fd, long *pid, int *rank)
{
	char buf[64] = "";
	long holder = 0, p = 0;
	int r0 = -1;

	for (int tries = 0; tries < 200; tries++) {
		ssize_t r = pread(fd, buf, sizeof buf - 1, 0);

		holder = tly_lock_holder(fd);
		buf[r > 0 ? r : 0] = '\0';
		if (r > 0 && sscanf(buf, "%ld %d", &p, &r0) == 2 &&
		    (holder > 0 ? p == holder : holder < 0 && kill((pid_t)p, 0) == 0)) {
			*pid = p;
			*rank = r0;
			return;
		}
		if (holder == 0 && tries > 0)
			break;   /* the owner has gone meanwhile */
		usleep(1000);
	}
	*pid = holder > 0 ? holder : 0;
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
