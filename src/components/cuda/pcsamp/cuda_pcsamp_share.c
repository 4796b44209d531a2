/*
 * cuda_pcsamp_share.c - one sampling process per GPU.  CUPTI samples one
 * context per GPU at a time, so when several processes (MPI ranks) share a
 * GPU, automatic sampling lets the first one that claims the GPU sample and
 * tells the others which process does.  The claim is an flock on
 * $TMPDIR/tally-<uid>/pcsamp-<GPU PCI id>.lock holding the owner's pid; the
 * kernel drops it when the owner exits, however it exits.  The lock lives
 * in the user's private directory (mode 0700, checked), is opened without
 * following links and never truncated: nobody else can plant a link there
 * to have a file destroyed, nor hold the lock to stop this user sampling.
 * A lock file owned by another user (only root can put one there) is
 * reported as held by that user.
 */
#include "cuda_pcsamp_internal.h"

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

#define MAX_CLAIMS 64

static struct {
	pthread_mutex_t lock;
	int n;
	char key[MAX_CLAIMS][64];
	int fd[MAX_CLAIMS];
} claims = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int ours_locked(const char *key)
{
	for (int i = 0; i < claims.n; i++)
		if (!strcmp(claims.key[i], key))
			return 1;
	return 0;
}

/* The owner: the live holder of the lock as the kernel says
 * (services/lock_file.c), not the pid in the file, which is the last
 * owner's until the new one overwrites it; the file's pid only where the
 * kernel's table cannot be read (0 when not yet written). */
static long read_owner(int fd)
{
	char buf[32] = "";
	long holder = tly_lock_holder(fd);
	ssize_t r;

	if (holder >= 0)
		return holder;
	r = pread(fd, buf, sizeof buf - 1, 0);
	return r > 0 ? strtol(buf, NULL, 10) : 0;
}

/* Opens the lock of `key` (services/lock_file.c): -1 when there is none
 * to use, -2 with *uid when another user owns it. */
static int open_lock(const char *key, long *uid)
{
	char name[96];

	snprintf(name, sizeof name, "pcsamp-%s.lock", key);
	return tly_private_lock_open(name, uid);
}

int tly_pcs_gpu_claim(const char *key, long *owner)
{
	char pid[24];
	int fd, rc = 0;

	*owner = (long)getpid();
	pthread_mutex_lock(&claims.lock);
	if (ours_locked(key) || claims.n == MAX_CLAIMS)
		goto out;
	fd = open_lock(key, owner);
	if (fd == -2) {
		rc = -2;
		goto out;
	}
	if (fd < 0) {
		*owner = (long)getpid();
		goto out;   /* no way to coordinate: sample */
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		*owner = read_owner(fd);
		close(fd);
		rc = -1;
		goto out;
	}
	/* fixed width: overwrites the last owner's pid without truncating */
	snprintf(pid, sizeof pid, "%-20ld\n", (long)getpid());
	if (pwrite(fd, pid, strlen(pid), 0) < 0)
		*owner = (long)getpid();
	snprintf(claims.key[claims.n], sizeof claims.key[claims.n], "%s", key);
	claims.fd[claims.n++] = fd;
out:
	pthread_mutex_unlock(&claims.lock);
	return rc;
}

int tly_pcs_gpu_key(CUcontext ctx, char *key, size_t len)
{
	const struct tly_cu_drv *drv = tly_cu_libs()->drv;
	int dev, dom = 0, bus = 0, slot = 0;
	CUcontext c;
	CUdevice d;

	if (tly_cu_ctx_resolve(ctx, &c, &dev) != PAPI_OK)
		return -1;
	d = tly_cu_device(dev)->dev;
	if (drv->cuDeviceGetAttribute(&dom, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d) != CUDA_SUCCESS ||
	    drv->cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d) != CUDA_SUCCESS ||
	    drv->cuDeviceGetAttribute(&slot, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d) != CUDA_SUCCESS)
		return -1;
	snprintf(key, len, "%04x-%02x-%02x", dom, bus, slot);
	return 0;
}
