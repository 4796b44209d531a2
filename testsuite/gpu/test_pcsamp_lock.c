/*
 * test_pcsamp_lock.c - the PC-sampling lock file is safe on a shared /tmp
 * (no GPU needed: the lock is plain files and flock).  It lives in a
 * per-user directory created 0700; a link planted at its name is not
 * followed (its target is left as it was); a file this user did not
 * create is never truncated; a directory that is not private (other
 * permissions, a link, someone else's) is not used.
 *
 * `test_pcsamp_lock other-user` (root only, else a skip): a lock file
 * owned by another user is reported as held by that user, and left alone.
 */
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
#include "components/cuda/pcsamp/cuda_pcsamp_internal.h"

#define VICTIM "precious contents of someone else's file\n"
#define OTHER_UID 65534

static char base[64];   /* TMPDIR of the test */
static char priv[128];  /* base/tally-<euid> */

static void lock_path(char *buf, size_t len, const char *key)
{
	snprintf(buf, len, "%s/pcsamp-%s.lock", priv, key);
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		TH_FATAL("cannot create a test file");
	close(fd);
}

/* Removes the last TMPDIR (links are removed, not followed). */
static void drop_base(void)
{
	if (base[0])
		th_rm_tree(base);
	base[0] = 0;
}

/* A fresh TMPDIR; its tally-<euid> directory is not made. */
static void fresh_base(void)
{
	drop_base();
	snprintf(base, sizeof base, "/tmp/tally-lock-XXXXXX");
	if (!mkdtemp(base))
		TH_FATAL("mkdtemp failed");
	setenv("TMPDIR", base, 1);
	snprintf(priv, sizeof priv, "%s/tally-%ld", base, (long)geteuid());
}

static void private_directory_and_file(void)
{
	char path[192];
	struct stat st;
	long owner = 0;

	fresh_base();
	TH_EQ(tly_pcs_gpu_claim("0000-01-00", &owner), 0);
	TH_EQ(owner, (long)getpid());
	TH_EQ(lstat(priv, &st), 0);
	TH_CHECK(S_ISDIR(st.st_mode));
	TH_EQ(st.st_mode & 0777, 0700);
	TH_EQ(st.st_uid, geteuid());
	lock_path(path, sizeof path, "0000-01-00");
	TH_EQ(lstat(path, &st), 0);
	TH_CHECK(S_ISREG(st.st_mode));
	TH_EQ(st.st_mode & 0777, 0600);
	TH_EQ(atol(th_file_text(path)), (long)getpid());
}

/* A link at the lock's name: not followed, its target unchanged, and the
 * process samples (there is no lock to coordinate with). */
static void planted_link(void)
{
	char path[192], victim[192];
	struct stat st;
	long owner = 0;

	snprintf(victim, sizeof victim, "%s/victim", base);
	write_file(victim, VICTIM, 0644);
	lock_path(path, sizeof path, "0000-02-00");
	TH_EQ(symlink(victim, path), 0);
	TH_EQ(tly_pcs_gpu_claim("0000-02-00", &owner), 0);
	TH_EQ(owner, (long)getpid());
	TH_CHECK(!strcmp(th_file_text(victim), VICTIM));
	TH_EQ(lstat(path, &st), 0);
	TH_CHECK(S_ISLNK(st.st_mode));
	/* a dangling link does not create its target either */
	lock_path(path, sizeof path, "0000-03-00");
	snprintf(victim, sizeof victim, "%s/created-through-link", base);
	TH_EQ(symlink(victim, path), 0);
	TH_EQ(tly_pcs_gpu_claim("0000-03-00", &owner), 0);
	TH_CHECK(access(victim, F_OK) != 0 && errno == ENOENT);
}

/* A longer file already there (this user's): the pid overwrites its start,
 * nothing is cut off. */
static void never_truncated(void)
{
	char path[192], text[128];
	struct stat st;
	long owner = 0;

	memset(text, 'x', 100);
	text[100] = 0;
	lock_path(path, sizeof path, "0000-04-00");
	write_file(path, text, 0600);
	TH_EQ(tly_pcs_gpu_claim("0000-04-00", &owner), 0);
	TH_EQ(stat(path, &st), 0);
	TH_EQ(st.st_size, 100);
	TH_EQ(atol(th_file_text(path)), (long)getpid());
	TH_CHECK(!strcmp(th_file_text(path) + 21, text + 21));
}

/* tally-<euid> open to others, or a link to a directory: not used. */
static void directory_not_private(void)
{
	char path[192], target[128];
	long owner = 0;

	fresh_base();
	TH_EQ(mkdir(priv, 0700), 0);
	TH_EQ(chmod(priv, 0777), 0);
	TH_EQ(tly_pcs_gpu_claim("0000-05-00", &owner), 0);
	TH_EQ(owner, (long)getpid());
	lock_path(path, sizeof path, "0000-05-00");
	TH_CHECK(access(path, F_OK) != 0);
	TH_EQ(rmdir(priv), 0);

	snprintf(target, sizeof target, "%s/elsewhere", base);
	TH_EQ(mkdir(target, 0700), 0);
	TH_EQ(symlink(target, priv), 0);
	TH_EQ(tly_pcs_gpu_claim("0000-06-00", &owner), 0);
	snprintf(path, sizeof path, "%s/pcsamp-0000-06-00.lock", target);
	TH_CHECK(access(path, F_OK) != 0);
}

/* Root plants a lock file owned by another user in root's directory. */
static int other_user(void)
{
	char path[192];
	long owner = 0;

	if (geteuid() != 0)
		TH_SKIP("needs root to make a file owned by another user");
	fresh_base();
	TH_EQ(mkdir(priv, 0700), 0);
	lock_path(path, sizeof path, "0000-07-00");
	write_file(path, "12345\n", 0644);
	TH_EQ(chown(path, OTHER_UID, OTHER_UID), 0);
	TH_EQ(tly_pcs_gpu_claim("0000-07-00", &owner), -2);
	TH_EQ(owner, OTHER_UID);
	TH_CHECK(!strcmp(th_file_text(path), "12345\n"));
	drop_base();
	return th_done();
}

int main(int argc, char **argv)
{
	umask(022);
	if (argc == 2 && !strcmp(argv[1], "other-user"))
		return other_user();
	private_directory_and_file();
	planted_link();
	never_truncated();
	directory_not_private();
	drop_base();
	return th_done();
}
