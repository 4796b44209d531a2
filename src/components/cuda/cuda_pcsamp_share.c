/*
 * cuda_pcsamp_share.c - one sampling process per GPU.  CUPTI samples one
 * context per GPU at a time, so when several processes (MPI ranks) share a
 * GPU, automatic sampling lets the first one that claims the GPU sample and
 * tells the others which process does.  The claim is an flock on
 * $TMPDIR/tally-pcsamp-<GPU PCI id>.lock holding the owner's pid; the
 * kernel drops it when the owner exits, however it exits.
 */
#include "cuda_internal.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define MAX_CLAIMS 64

static struct {
	pthread_mutex_t lock;
	int n;
	char key[MAX_CLAIMS][64];
	int fd[MAX_CLAIMS];
} sh = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int ours_locked(const char *key)
{
	for (int i = 0; i < sh.n; i++)
		if (!strcmp(sh.key[i], key))
			return 1;
	return 0;
}

/* The pid written by the owner (0 when not yet written). */
static long read_owner(int fd)
{
	char buf[32] = "";
	ssize_t r = pread(fd, buf, sizeof buf - 1, 0);

	return r > 0 ? strtol(buf, NULL, 10) : 0;
}

int tly_pcs_gpu_claim(const char *key, long *owner)
{
	const char *dir = getenv("TMPDIR");
	char path[512], pid[32];
	int fd, rc = 0;

	*owner = (long)getpid();
	pthread_mutex_lock(&sh.lock);
	if (ours_locked(key) || sh.n == MAX_CLAIMS)
		goto out;
	snprintf(path, sizeof path, "%s/tally-pcsamp-%s.lock", dir && *dir ? dir : "/tmp", key);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		goto out;   /* no way to coordinate: sample */
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		*owner = read_owner(fd);
		close(fd);
		rc = -1;
		goto out;
	}
	snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, strlen(pid), 0) < 0)
		*owner = (long)getpid();
	snprintf(sh.key[sh.n], sizeof sh.key[sh.n], "%s", key);
	sh.fd[sh.n++] = fd;
out:
	pthread_mutex_unlock(&sh.lock);
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
