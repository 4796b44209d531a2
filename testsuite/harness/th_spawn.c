/*
 * th_spawn.c - th_spawn_read and th_spawn_wait (th_spawn.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "th_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

FILE *th_spawn_read(char *const argv[], pid_t *pid)
{
	int fd[2];
	FILE *f;

	if (!argv || !argv[0] || !pid || pipe2(fd, O_CLOEXEC) != 0)
		return NULL;
	*pid = fork();
	if (*pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	if (*pid == 0) {
		if (dup2(fd[1], STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "r");
	if (!f) {
		close(fd[0]);
		th_spawn_wait(NULL, *pid);
	}
	return f;
}

int th_spawn_wait(FILE *f, pid_t pid)
{
	int st = 0;
	pid_t r;

	if (f)
		fclose(f);
	do
		r = waitpid(pid, &st, 0);
	while (r < 0 && errno == EINTR);
	return r == pid ? st : -1;
}
