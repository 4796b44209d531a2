/*
 * profil.c - filling profile buckets (see profil.h for the mapping).
 *
 * Flags: POSIX (default) adds 1 per hit; WEIGHTED adds the number of
 * thresholds the hit stands for (1 for sampled hardware overflow, the
 * crossings since the last tick for software overflow); RANDOM drops a
 * pseudo-random quarter of the hits (to break lock-step with periodic
 * code); COMPRESS halves every bucket of a region when one would
 * overflow, keeping the proportions, where the default saturates the
 * bucket at its maximum (buckets never wrap).
 */
#include "core/profil.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/errors.h"

struct tly_prof *tly_prof_new(const PAPI_sprofil_t *r, int n, int flags)
{
	struct tly_prof *p = calloc(1, sizeof *p + (size_t)n * sizeof p->r[0]);

	if (!p) {
		tly_err_set(PAPI_ENOMEM, "out of memory for a profile");
		return NULL;
	}
	p->flags = flags;
	p->bucket = (flags & PAPI_PROFIL_BUCKET_64) ? 8 : (flags & PAPI_PROFIL_BUCKET_32) ? 4 : 2;
	p->rnd = 0x9e3779b9u;
	p->n = n;
	memcpy(p->r, r, (size_t)n * sizeof r[0]);
	return p;
}

long long tly_prof_bucket(const PAPI_sprofil_t *r, int bucket_bytes, void *pc)
{
	uintptr_t a = (uintptr_t)pc, off = (uintptr_t)r->pr_off;
	unsigned __int128 idx;

	if (a < off || bucket_bytes <= 0)
		return -1;
	idx = ((unsigned __int128)(a - off) * r->pr_scale) >> 17;
	return idx < r->pr_size / (unsigned)bucket_bytes ? (long long)idx : -1;
}

static uint64_t get(const void *base, int bytes, long long i)
{
	if (bytes == 2)
		return ((const uint16_t *)base)[i];
	if (bytes == 4)
		return ((const uint32_t *)base)[i];
	return ((const uint64_t *)base)[i];
}

static void put(void *base, int bytes, long long i, uint64_t v)
{
	if (bytes == 2)
		((uint16_t *)base)[i] = (uint16_t)v;
	else if (bytes == 4)
		((uint32_t *)base)[i] = (uint32_t)v;
	else
		((uint64_t *)base)[i] = v;
}

static void halve(const PAPI_sprofil_t *r, int bytes)
{
	long long nb = (long long)(r->pr_size / (unsigned)bytes);

	if (nb == 0)
		nb = 1; /* the catch-all bucket */

	for (long long i = 0; i < nb; i++)
		put(r->pr_base, bytes, i, get(r->pr_base, bytes, i) / 2);
}

static void add(struct tly_prof *p, const PAPI_sprofil_t *r, long long i, uint64_t w)
{
	uint64_t max = p->bucket == 8 ? UINT64_MAX : (1ULL << (8 * p->bucket)) - 1;
	uint64_t v = get(r->pr_base, p->bucket, i);

	if (v > max - w && (p->flags & PAPI_PROFIL_COMPRESS)) {
		halve(r, p->bucket);
		v = get(r->pr_base, p->bucket, i);
	}
	put(r->pr_base, p->bucket, i, v > max - w ? max : v + w);
}

void tly_prof_hit(struct tly_prof *p, void *pc, long long weight)
{
	uint64_t w = (p->flags & PAPI_PROFIL_WEIGHTED) && weight > 0 ? (uint64_t)weight : 1;

	if (p->flags & PAPI_PROFIL_RANDOM) {
		p->rnd ^= p->rnd << 13;
		p->rnd ^= p->rnd >> 17;
		p->rnd ^= p->rnd << 5;
		if ((p->rnd & 3) == 0)
			return;
	}
	for (int k = 0; k < p->n; k++) {
		long long i = tly_prof_bucket(&p->r[k], p->bucket, pc);

		if (i >= 0) {
			add(p, &p->r[k], i, w);
			return;
		}
	}
	if (tly_prof_is_catchall(&p->r[p->n - 1]))
		add(p, &p->r[p->n - 1], 0, w);
}
