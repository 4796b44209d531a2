/*
 * cuda_replay_cache.h - cache-dependent metrics under kernel replay
 * (cuda_replay_cache.c).
 */
#ifndef TALLY_CUDA_REPLAY_CACHE_H
#define TALLY_CUDA_REPLAY_CACHE_H

#include <stddef.h>

/* A kernel-replay list of `passes` passes with a cache-dependent metric
 * while the flush is on: said once (their values may be low). */
void tly_cu_replay_cache_check(const char *const *names, int n, size_t passes);

#endif /* TALLY_CUDA_REPLAY_CACHE_H */
