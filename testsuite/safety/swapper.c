/*
 * swapper.c DIR VICTIM_FILE VICTIM_DIR LOG - a hostile neighbour for the
 * race test (run_swap_race.sh).  With inotify it watches DIR and replaces
 * every file or directory created in it or renamed into it by a symbolic
 * link, to VICTIM_DIR for a directory and to VICTIM_FILE otherwise, as
 * fast as it can: the original is moved to DIR/.moved.N first and the
 * line "NAME .moved.N" is appended to LOG.  "watching" is the first line
 * of LOG.  It runs until it is killed.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

static void swap(const char *dir, const char *name, int isdir, char **argv, FILE *log, int *n)
{
	char from[PATH_MAX], to[PATH_MAX], moved[64];
	struct stat st;

	if (!strncmp(name, ".moved.", 7))
		return;
	snprintf(from, sizeof from, "%s/%s", dir, name);
	if (lstat(from, &st) != 0 || S_ISLNK(st.st_mode))
		return;   /* gone already, or a link of ours */
	snprintf(moved, sizeof moved, ".moved.%d", ++*n);
	snprintf(to, sizeof to, "%s/%s", dir, moved);
	if (rename(from, to) != 0)
		return;
	if (symlink(isdir ? argv[3] : argv[2], from) == 0)
		fprintf(log, "%s %s\n", name, moved);
}

int main(int argc, char **argv)
{
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	int fd, n = 0;
	FILE *log;

	if (argc != 5)
		return 2;
	fd = inotify_init1(IN_CLOEXEC);
	log = fopen(argv[4], "a");
	if (fd < 0 || !log || inotify_add_watch(fd, argv[1], IN_CREATE | IN_MOVED_TO) < 0) {
		perror("swapper");
		return 1;
	}
	setvbuf(log, NULL, _IOLBF, 0);
	fprintf(log, "watching\n");
	for (;;) {
		ssize_t len = read(fd, buf, sizeof buf);

		for (char *p = buf; len > 0 && p < buf + len;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->len)
				swap(argv[1], ev->name, (ev->mask & IN_ISDIR) != 0, argv, log, &n);
			p += sizeof *ev + ev->len;
		}
	}
}
