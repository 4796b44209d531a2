/*
 * th_spawn.h - running a program and reading its output without a shell
 * (th_spawn.c): the tests' popen.  Paths from the build go to exec as
 * arguments, never into a command line a shell would split.
 */
#ifndef TALLY_TH_SPAWN_H
#define TALLY_TH_SPAWN_H

#include <stdio.h>
#include <sys/types.h>

/* Starts argv[0] (found on PATH when it has no '/') with argv, its
 * standard output on the returned stream; *pid is the child.  NULL when
 * the pipe or the fork fails (a failed exec shows as exit status 127). */
FILE *th_spawn_read(char *const argv[], pid_t *pid);

/* Closes the stream and waits for the child: its wait status, as pclose
 * returns it (0: exited with 0), or -1. */
int th_spawn_wait(FILE *f, pid_t pid);

#endif /* TALLY_TH_SPAWN_H */
