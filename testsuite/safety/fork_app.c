/*
 * fork_app.c [term|int] - a program that fork()s a child which pauses,
 * then ends it with SIGTERM (or SIGINT) after 0.2 s, as a parent of
 * workers does (issue 47).  Prints "ended in S s"; exit 0 when the child
 * ended by the signal within 10 s, 1 when it had to be killed (the signal
 * swallowed in the child) or ended otherwise.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int sig = argc > 1 && !strcmp(argv[1], "int") ? SIGINT : SIGTERM, st = 0;
	pid_t c = fork();
	double t0;

	if (c < 0)
		return 2;
	if (c == 0)
		for (;;)
			pause();
	usleep(200000);
	t0 = now();
	kill(c, sig);
	for (int i = 0; i < 1000 && waitpid(c, &st, WNOHANG) != c; i++)
		usleep(10000);
	if (now() - t0 >= 9.9 && waitpid(c, &st, WNOHANG) != c) {
		kill(c, SIGKILL);
		waitpid(c, &st, 0);
		printf("the child did not end on %s in 10 s\n", strsignal(sig));
		return 1;
	}
	printf("ended in %.3f s\n", now() - t0);
	if (!WIFSIGNALED(st) || WTERMSIG(st) != sig) {
		printf("the child ended otherwise (status 0x%x)\n", st);
		return 1;
	}
	return 0;
}
