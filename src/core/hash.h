/*
 * hash.h - FNV-1a, 64 bits: the one hash of the project (region names,
 * pass schedules, GPU config images).  Chain calls to hash several pieces.
 */
#ifndef TALLY_CORE_HASH_H
#define TALLY_CORE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define TLY_FNV_BASIS 14695981039346656037ULL

static inline uint64_t tly_fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *b = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

#endif /* TALLY_CORE_HASH_H */
