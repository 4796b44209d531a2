/*
 * cuda_avail_cache.c - the counter availability image of a GPU, kept on
 * disk beside the metric catalog.  CUPTI answers
 * cuptiProfilerGetCounterAvailability only on a context and takes about
 * 140 ms for it on an H100 (docs/gpu-startup.md); the pass count of every
 * metric list and every configuration image depend on it.  The image
 * belongs to one GPU under one driver and one CUPTI: the file is named by
 * the GPU's UUID (a MIG instance has its own), the driver version and the
 * CUPTI version, so a new driver, another GPU or a repartitioned one never
 * reads an old image.  TALLY_CUDA_NO_CACHE=1 asks the GPU again (and
 * replaces the file).
 * Files are created and read as the catalog's are (safe_file.h): in the
 * user's own 0700 directory, through the descriptor the safe-file service
 * checked it on, no link followed, written under a unique name and
 * renamed.
 */
#include "cuda_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "services/safe_file.h"
#include "tally_shared.h"

#define AVAIL_MAGIC "tally-cuda-avail 1"
#define AVAIL_MAX (1u << 20)   /* an image is a few KiB; anything larger is not one */

/* The file of this GPU, driver and CUPTI (its name in the cache folder
 * `dir`, 768 bytes); 0, or -1 when the GPU has no UUID. */
static int avail_path(const struct tly_cu_device *d, char *dir, char *buf, size_t len, char *key, size_t klen)
{
	const struct tly_cu_drv *drv = tly_cu_libs()->drv;
	char uuid[2 * sizeof(CUuuid) + 1];
	CUuuid u;
	int dv = 0;
	uint32_t pv = 0;

	if (!drv || !drv->cuDeviceGetUuid || drv->cuDeviceGetUuid(&u, d->dev) != CUDA_SUCCESS)
		return -1;
	for (size_t i = 0; i < sizeof u.bytes; i++)
		snprintf(uuid + 2 * i, 3, "%02x", (unsigned char)u.bytes[i]);
	drv->cuDriverGetVersion(&dv);
	tly_cu_libs()->pti->cuptiGetVersion(&pv);
	snprintf(key, klen, "%s %s %s drv%d cupti%u", AVAIL_MAGIC, d->chip, uuid, dv, (unsigned)pv);
	tly_cu_cache_dir(dir, 768);
	snprintf(buf, len, "cuda-avail-%s-drv%d-cupti%u.bin", uuid, dv, (unsigned)pv);
	return 0;
}

uint8_t *tly_cu_avail_load(const struct tly_cu_device *d)
{
	char path[256], dir[768], key[256], head[320];
	uint8_t *img = NULL;
	unsigned long n = 0;
	FILE *f;
	int dfd;

	if (tly_setting_flag(TLY_SET_cuda_no_cache) || avail_path(d, dir, path, sizeof path, key, sizeof key) != 0)
		return NULL;
	if ((dfd = tly_safe_private_dir(dir)) < 0)
		return NULL;   /* not the user's own directory: not trusted */
	f = tly_safe_open_own_at(dfd, path);
	close(dfd);
	if (!f)
		return NULL;
	if (fgets(head, sizeof head, f) && !strncmp(head, key, strlen(key)) &&
	    sscanf(head + strlen(key), " %lu", &n) == 1 && n > 0 && n <= AVAIL_MAX && (img = malloc(n)) &&
	    (fread(img, 1, n, f) != n || fgetc(f) != EOF)) {
		free(img);   /* short or long: not an image this code wrote */
		img = NULL;
	}
	fclose(f);
	return img;
}

void tly_cu_avail_store(const struct tly_cu_device *d, const uint8_t *img, size_t n)
{
	char path[256], tmp[300], dir[768], key[256];
	FILE *f;
	int dfd;

	if (!img || n == 0 || n > AVAIL_MAX || avail_path(d, dir, path, sizeof path, key, sizeof key) != 0)
		return;
	if ((dfd = tly_safe_private_dir(dir)) < 0)
		return;   /* a cache is an optimisation: no cache then */
	if ((f = tly_safe_create_at(dfd, path, tmp, sizeof tmp))) {
		fprintf(f, "%s %zu\n", key, n);
		(void)tly_safe_commit_at(f, dfd, tmp, path, fwrite(img, 1, n, f) == n);
	}
	close(dfd);
}

/* $XDG_CACHE_HOME/tally, else ~/.cache/tally, else (no home) the user's
 * private $TMPDIR/tally-<uid>/cache: never a directory shared with others. */
void tly_cu_cache_dir(char *buf, size_t len)
{
	const char *x = tly_env_raw("XDG_CACHE_HOME");
	const char *h = tly_env_raw("HOME");
	const char *t = tly_env_raw("TMPDIR");

	if (x && x[0] == '/')
		snprintf(buf, len, "%s/tally", x);
	else if (h && h[0] == '/')
		snprintf(buf, len, "%s/.cache/tally", h);
	else
		snprintf(buf, len, "%s/tally-%ld/cache", t && t[0] == '/' ? t : "/tmp", (long)geteuid());
}
