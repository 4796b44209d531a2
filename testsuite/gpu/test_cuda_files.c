/*
 * test_cuda_files.c - the CUDA component's own files are made safely (no
 * GPU needed: plain files).  Counter data images (cuda_image.c) and the
 * metric catalog cache (cuda_metrics.c) go through services/safe_file.c: a
 * unique temporary name made with O_EXCL|O_NOFOLLOW, mode 0600, renamed
 * into place, so a link planted at the name is replaced and its target
 * left alone; only this user's regular files are read back; the cache
 * directory is the user's own (created 0700), never a shared one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tharness.h"
#include "th_file.h"
#include "components/cuda/common/cuda_internal.h"
#include "services/safe_file.h"
#include "papi.h"

#define VICTIM "someone else's file\n"

static char base[64];

static void plant(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		TH_FATAL("cannot create a test file");
	close(fd);
}

/* Entries of `dir` whose name starts with `prefix` (temporaries left). */
static int count_prefixed(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	if (d)
		closedir(d);
	return n;
}

/* An image saved where a link was planted: the link is replaced by the
 * image (mode 0600), the link's target is untouched; the image loads. */
static void image_over_link(void)
{
	uint8_t cfgimg[64], img[1000], back[1000];
	struct tly_cu_config cfg = { .image = cfgimg, .size = sizeof cfgimg, .passes = 2 };
	char path[128], victim[128];
	struct stat st;

	for (size_t i = 0; i < sizeof img; i++)
		img[i] = (uint8_t)(i * 7), cfgimg[i % sizeof cfgimg] = (uint8_t)i;
	snprintf(victim, sizeof victim, "%s/victim", base);
	snprintf(path, sizeof path, "%s/job.rank0.cdata", base);
	plant(victim, VICTIM);
	TH_EQ(symlink(victim, path), 0);
	TH_EQ(tly_cu_image_save(path, &cfg, 0, img, sizeof img), PAPI_OK);
	TH_CHECK(!strcmp(th_file_text(victim), VICTIM));
	TH_EQ(lstat(path, &st), 0);
	TH_CHECK(S_ISREG(st.st_mode));
	TH_EQ(st.st_mode & 0777, 0600);
	memset(back, 0, sizeof back);
	TH_EQ(tly_cu_image_load(path, &cfg, 0, back, sizeof back), PAPI_OK);
	TH_EQ(memcmp(back, img, sizeof img), 0);
	/* the next pass replaces it again, leaving no temporary file */
	TH_EQ(tly_cu_image_save(path, &cfg, 1, img, sizeof img), PAPI_OK);
	TH_EQ(count_prefixed(base, "job.rank0.cdata."), 0);
	/* a link is not read through: the load is refused */
	TH_EQ(unlink(path), 0);
	TH_EQ(symlink(victim, path), 0);
	TH_EQ(tly_cu_image_load(path, &cfg, 1, back, sizeof back), PAPI_ESYS);
	TH_CHECK(!strcmp(th_file_text(victim), VICTIM));
}

/* The cache directory: private fallback without a home; created 0700;
 * a directory others may write to, or a link, is not used. */
static void cache_dir(void)
{
	char dir[768], want[256], target[128], link[128];
	struct stat st;
	int fd;

	unsetenv("XDG_CACHE_HOME");
	unsetenv("HOME");
	setenv("TMPDIR", base, 1);
	tly_cu_cache_dir(dir, sizeof dir);
	snprintf(want, sizeof want, "%s/tally-%ld/cache", base, (long)geteuid());
	TH_CHECK(!strcmp(dir, want));
	TH_CHECK((fd = tly_safe_private_dir(dir)) >= 0);   /* its descriptor */
	close(fd);
	TH_EQ(lstat(dir, &st), 0);
	TH_EQ(st.st_mode & 0777, 0700);
	TH_EQ(st.st_uid, geteuid());

	setenv("XDG_CACHE_HOME", base, 1);
	tly_cu_cache_dir(dir, sizeof dir);
	snprintf(want, sizeof want, "%s/tally", base);
	TH_CHECK(!strcmp(dir, want));
	TH_CHECK((fd = tly_safe_private_dir(dir)) >= 0);
	close(fd);
	TH_EQ(lstat(dir, &st), 0);
	TH_EQ(st.st_mode & 0777, 0700);
	TH_EQ(chmod(dir, 0777), 0);
	TH_EQ(tly_safe_private_dir(dir), -EPERM);
	TH_EQ(lstat(dir, &st), 0);
	TH_EQ(st.st_mode & 0777, 0777);   /* refused, never changed */

	snprintf(target, sizeof target, "%s/elsewhere", base);
	snprintf(link, sizeof link, "%s/linked", base);
	TH_EQ(mkdir(target, 0700), 0);
	TH_EQ(symlink(target, link), 0);
	TH_EQ(tly_safe_private_dir(link), -EPERM);
}

/* Reading back: this user's regular file only. */
static void open_own(void)
{
	char path[128], victim[128];
	FILE *f;

	snprintf(path, sizeof path, "%s/mine", base);
	snprintf(victim, sizeof victim, "%s/victim", base);
	plant(path, "x\n");
	f = tly_safe_open_own(path);
	TH_CHECK(f != NULL);
	if (f)
		fclose(f);
	snprintf(path, sizeof path, "%s/link-to-victim", base);
	TH_EQ(symlink(victim, path), 0);
	TH_CHECK(tly_safe_open_own(path) == NULL);
	if (geteuid() == 0) {   /* root can make a file of another user */
		snprintf(path, sizeof path, "%s/theirs", base);
		plant(path, "y\n");
		TH_EQ(chown(path, 65534, 65534), 0);
		errno = 0;
		TH_CHECK(tly_safe_open_own(path) == NULL && errno == EPERM);
	} else {
		printf("not root: a file of another user is not tried\n");
	}
}

int main(void)
{
	snprintf(base, sizeof base, "/tmp/tally-files-XXXXXX");
	if (!mkdtemp(base))
		TH_FATAL("mkdtemp failed");
	umask(022);
	image_over_link();
	open_own();
	cache_dir();
	th_rm_tree(base);
	return th_done();
}
