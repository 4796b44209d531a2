/*
 * neighbour.c MODE DIR LOG ARGS... - a hostile neighbour who can write the
 * output directory DIR (issue 47), run as another user.  With inotify it
 * acts on every directory created in DIR or renamed into it, as fast as
 * it can, and appends "NAME what" to LOG ("watching" first):
 *
 *   adopt DIR LOG VICTIM...   a new `*.tmp` directory (a private one of
 *       Tally's) is removed and the next VICTIM (a directory in DIR, not
 *       hers) moved in under its name, so that Tally would take it as its
 *       own;
 *   trace DIR LOG EVIL        a new directory whose name holds ".trace"
 *       is moved away (to .moved.N) and a link to EVIL (her directory
 *       of links to victim files) put in its place;
 *   parts DIR LOG EVIL        a new directory whose name ends in ".parts"
 *       (the job directory of a job without MPI) is moved away (to
 *       .moved.N) and, in turn, a link to EVIL (her directory of links
 *       to victim files) or a directory of hers, open to all (0777),
 *       holding the same links, put in its place ("NAME .moved.N link"
 *       or "... dir" in LOG).
 *
 * It runs until it is killed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

static int ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

/* "parts": the job directory moved away; in its place a link to EVIL or
 * (every other time) a directory of hers open to all with EVIL's links. */
static void parts_swap(const char *evil, const char *from, const char *dir, FILE *log, int *n, const char *name)
{
	char to[PATH_MAX], link[PATH_MAX], target[PATH_MAX], entry[PATH_MAX];
	struct dirent *e;
	DIR *d;
	ssize_t k;

	snprintf(to, sizeof to, "%s/.moved.%d", dir, ++*n);
	if (rename(from, to) != 0)
		return;
	if (*n % 2) {
		if (symlink(evil, from) == 0)
			fprintf(log, "%s .moved.%d link\n", name, *n);
		return;
	}
	if (mkdir(from, 0777) != 0 || chmod(from, 0777) != 0 || !(d = opendir(evil)))
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(link, sizeof link, "%s/%s", evil, e->d_name);
			snprintf(entry, sizeof entry, "%s/%s", from, e->d_name);
			if ((k = readlink(link, target, sizeof target - 1)) > 0) {
				target[k] = '\0';
				(void)symlink(target, entry);
			}
		}
	closedir(d);
	fprintf(log, "%s .moved.%d dir\n", name, *n);
}

static void act(char **argv, int argc, const char *name, int created, FILE *log, int *n)
{
	char from[PATH_MAX], to[PATH_MAX];
	struct stat st;

	if (!strncmp(name, ".moved.", 7))
		return;
	snprintf(from, sizeof from, "%s/%s", argv[2], name);
	if (!strcmp(argv[1], "adopt")) {
		if (!created || !ends_with(name, ".tmp") || 4 + *n >= argc)   /* not a victim moved in */
			return;
		snprintf(to, sizeof to, "%s/%s", argv[2], argv[4 + *n]);
		if (rmdir(from) == 0 && rename(to, from) == 0)
			fprintf(log, "%s %s\n", name, argv[4 + (*n)++]);
		return;
	}
	if (!strcmp(argv[1], "parts")) {
		if (ends_with(name, ".parts") && lstat(from, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid != getuid())
			parts_swap(argv[4], from, argv[2], log, n, name);
		return;
	}
	if (!strstr(name, ".trace") || lstat(from, &st) != 0 || !S_ISDIR(st.st_mode))
		return;
	snprintf(to, sizeof to, "%s/.moved.%d", argv[2], ++*n);
	if (rename(from, to) == 0 && symlink(argv[4], from) == 0)
		fprintf(log, "%s .moved.%d\n", name, *n);
}

int main(int argc, char **argv)
{
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
	int fd, n = 0;
	FILE *log;

	if (argc < 5 || (strcmp(argv[1], "adopt") && strcmp(argv[1], "trace") && strcmp(argv[1], "parts")))
		return 2;
	fd = inotify_init1(IN_CLOEXEC);
	log = fopen(argv[3], "a");
	if (fd < 0 || !log || inotify_add_watch(fd, argv[2], IN_CREATE | IN_MOVED_TO | IN_ONLYDIR) < 0) {
		perror("neighbour");
		return 1;
	}
	setvbuf(log, NULL, _IOLBF, 0);
	fprintf(log, "watching\n");
	for (;;) {
		ssize_t len = read(fd, buf, sizeof buf);

		for (char *p = buf; len > 0 && p < buf + len;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;

			if (ev->len && (ev->mask & IN_ISDIR))
				act(argv, argc, ev->name, (ev->mask & IN_CREATE) != 0, log, &n);
			p += sizeof *ev + ev->len;
		}
	}
}
