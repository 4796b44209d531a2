/*
 * spawn.h - child processes of tally-run, started from argument vectors
 * (posix_spawnp): no shell ever sees a name, so any byte in a program,
 * directory or file name is passed through unchanged.
 */
#ifndef TALLY_RUN_SPAWN_H
#define TALLY_RUN_SPAWN_H

#include <stddef.h>

/* Runs argv to completion with `env_extra` (name, value, ..., NULL) added
 * to the environment; its exit status (128 + signal when killed, 127 when
 * it could not start). */
int tly_spawn_wait(char **argv, char **env_extra);

/* Runs argv and keeps the first `len - 1` bytes of its standard output in
 * `out` (NUL-terminated); its exit status as above. */
int tly_spawn_capture(char **argv, char *out, size_t len);

#endif
