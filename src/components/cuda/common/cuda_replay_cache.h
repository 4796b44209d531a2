/*
 * cuda_replay_cache.h - cache-dependent metrics under kernel replay
 * (cuda_replay_cache.c).
 */
#ifndef TALLY_CUDA_REPLAY_CACHE_H
#define TALLY_CUDA_REPLAY_CACHE_H

#include <stddef.h>

/* A list of `passes` passes with a cache-dependent metric replayed by
 * CUPTI while the flush is on (Tally could not replay it itself: `why`):
 * said once (their values may be low). */
void tly_cu_replay_cache_check(const char *const *names, int n, size_t passes, const char *why);

#endif /* TALLY_CUDA_REPLAY_CACHE_H */
