/*
 * cuda_image.c - counter data images kept on disk between the runs of an
 * application replay (CUPTI user replay across processes).  Run k restores
 * the image run k-1 saved, profiles pass k into it and saves it again; the
 * last run evaluates it.  A header ties the file to its config (size and
 * hash of the config image), the image size and the pass that wrote it, so
 * an image from another metric list, GPU or run order is refused with a
 * reason instead of being merged.
 */
#include "cuda_internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "papi.h"
#include "services/err_detail.h"
#include "tally_shared.h"
#include "services/safe_file.h"

struct image_header {
	char magic[8];          /* "TLYCDAT1" */
	uint64_t config_hash;   /* FNV-1a of the config image (tally_shared.h) */
	uint64_t config_size;
	uint64_t image_size;
	int32_t pass;           /* the pass that wrote the image */
	int32_t passes;
};

static void header_of(struct image_header *h, const struct tly_cu_config *cfg, int pass, size_t size)
{
	memset(h, 0, sizeof *h);
	memcpy(h->magic, "TLYCDAT1", 8);
	h->config_hash = tly_fnv1a(TLY_FNV_BASIS, cfg->image, cfg->size);
	h->config_size = cfg->size;
	h->image_size = size;
	h->pass = pass;
	h->passes = (int32_t)cfg->passes;
}

int tly_cu_image_save(const char *path, const struct tly_cu_config *cfg, int pass, const uint8_t *img,
		      size_t size)
{
	struct image_header h;
	char tmp[4200];
	FILE *f = tly_safe_create(path, tmp, sizeof tmp);   /* then renamed: no link followed */
	int ok;

	if (!f)
		return tly_err_set(PAPI_ESYS, "counter data image '%s' cannot be written: %s", path,
				   strerror(errno));
	header_of(&h, cfg, pass, size);
	ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(img, 1, size, f) == size;
	if (tly_safe_commit(f, tmp, path, ok) != 0)
		return tly_err_set(PAPI_ESYS, "counter data image '%s': write failed: %s", path, strerror(errno));
	return PAPI_OK;
}

int tly_cu_image_load(const char *path, const struct tly_cu_config *cfg, int pass, uint8_t *img, size_t size)
{
	struct image_header want, got;
	FILE *f = tly_safe_open_own(path);   /* this user's regular file, not a link */
	int ok;

	if (!f)
		return tly_err_set(PAPI_ESYS, "counter data image '%s' of pass %d cannot be read: %s (run the "
				   "passes in order, in one directory)", path, pass - 1, strerror(errno));
	header_of(&want, cfg, pass, size);
	ok = fread(&got, sizeof got, 1, f) == 1;
	if (ok && (memcmp(got.magic, want.magic, 8) || got.config_hash != want.config_hash ||
		   got.config_size != want.config_size || got.image_size != want.image_size)) {
		fclose(f);
		return tly_err_set(PAPI_EINVAL, "counter data image '%s' was made for another metric list or GPU",
				   path);
	}
	if (ok && got.pass != pass) {
		fclose(f);
		return tly_err_set(PAPI_EINVAL, "counter data image '%s' holds pass %d; pass %d needs pass %d's",
				   path, got.pass, pass + 1, pass);
	}
	ok = ok && fread(img, 1, size, f) == size;
	fclose(f);
	return ok ? PAPI_OK : tly_err_set(PAPI_EINVAL, "counter data image '%s' is truncated", path);
}
