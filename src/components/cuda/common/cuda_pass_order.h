/*
 * cuda_pass_order.h - the order of a kernel-replay config's metrics while
 * the L2 flush is on (cuda_pass_order.c).
 */
#ifndef TALLY_CUDA_PASS_ORDER_H
#define TALLY_CUDA_PASS_ORDER_H

#include <stddef.h>
#include <stdint.h>

/* cuda_pass_order.c: metrics whose values depend on the cache state; a
 * copy of a list (freed by the caller) with those first (*nsens of them),
 * built into a kernel-replay config while the flush is on so they fall in
 * the pass after the flush; said once when they need several passes. */
int tly_cu_cache_sensitive(const char *name);
const char **tly_cu_flush_order(const char *const *names, int n, int *nsens);
void tly_cu_flush_check(const char *chip, const uint8_t *avail, const char *const *ordered, int nsens,
			size_t passes);

#endif /* TALLY_CUDA_PASS_ORDER_H */
