/*
 * spawn.c - tally-run's children from argument vectors.  posix_spawnp
 * rather than popen(): a command string built from a file name runs
 * whatever a quote in that name says (a directory named O'Brien broke
 * pass detection, a crafted one ran a command).
 */
#include "spawn.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tally_shared.h"

static int wait_status(pid_t pid)
{
	int st = 0;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The environment plus the extra pairs, extra ones first (they win). */
static char **env_with(char **extra)
{
	char **base = tly_env_all();
	size_t n = 0, k = 0, m = 0;
	char **env;

	while (base[n])
		n++;
	while (extra && extra[2 * m])
		m++;
	env = calloc(n + m + 1, sizeof *env);
	if (!env)
		return NULL;
	for (size_t i = 0; i < m; i++) {
		size_t len = strlen(extra[2 * i]) + strlen(extra[2 * i + 1]) + 2;

		env[k] = malloc(len);
		if (!env[k])
			break;
		snprintf(env[k++], len, "%s=%s", extra[2 * i], extra[2 * i + 1]);
	}
	for (size_t i = 0; i < n; i++) {
		int shadowed = 0;

		for (size_t j = 0; j < m; j++) {
			size_t l = strlen(extra[2 * j]);

			if (!strncmp(base[i], extra[2 * j], l) && base[i][l] == '=')
				shadowed = 1;
		}
		if (!shadowed)
			env[k++] = base[i];
	}
	return env;
}

static void env_free(char **env, char **extra)
{
	size_t m = 0;

	while (extra && extra[2 * m])
		m++;
	for (size_t i = 0; i < m && env[i]; i++)
		free(env[i]);
	free(env);
}

int tly_spawn_wait(char **argv, char **env_extra)
{
	char **env = env_with(env_extra);
	pid_t pid;
	int rc;

	if (!env)
		return 127;
	rc = posix_spawnp(&pid, argv[0], NULL, NULL, argv, env);
	env_free(env, env_extra);
	if (rc != 0) {
		fprintf(stderr, "tally-run: cannot run %s: %s\n", argv[0], strerror(rc));
		return 127;
	}
	return wait_status(pid);
}

int tly_spawn_capture(char **argv, char *out, size_t len)
{
	posix_spawn_file_actions_t fa;
	int fd[2], rc;
	size_t got = 0;
	pid_t pid;

	out[0] = '\0';
	if (pipe(fd) != 0)
		return 127;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, tly_env_all());
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (rc != 0) {
		close(fd[0]);
		fprintf(stderr, "tally-run: cannot run %s: %s\n", argv[0], strerror(rc));
		return 127;
	}
	for (;;) {
		char buf[256];
		ssize_t r = read(fd[0], buf, sizeof buf);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		for (ssize_t i = 0; i < r && got + 1 < len; i++)
			out[got++] = buf[i];
	}
	out[got] = '\0';
	close(fd[0]);
	return wait_status(pid);
}
