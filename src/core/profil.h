/*
 * profil.h - PAPI_profil / PAPI_sprofil histograms.
 *
 * A profile is one or more regions (PAPI_sprofil_t: buffer, its size in
 * bytes, the text offset it starts at, scale).  A hit at pc falls into
 * the first region where
 *     bucket = ((pc - pr_off) * pr_scale) >> 17
 * is below the number of buckets (pr_size / bucket bytes).  So 0x10000
 * gives one bucket per 2 bytes of text (the UNIX profil meaning, a 16-bit
 * bucket per 16-bit instruction word), 0x20000 one per byte, 0x8000 one
 * per 4 bytes, and 0x2 one per 64 KiB.  The formula does not depend on
 * the bucket size (16, 32 or 64 bits).  Hits run in a signal handler of
 * the owning thread: arithmetic only.
 *
 * The catch-all (PAPI's overflow bin): a last region with pr_off 0 and
 * pr_scale 0x2 also takes, in its first bucket, every hit that falls in
 * no region; its pr_size may be 1 (the usual way to write it), the
 * bucket is then one of the profile's bucket size all the same.
 */
#ifndef TALLY_CORE_PROFIL_H
#define TALLY_CORE_PROFIL_H

#include "papi.h"

struct tly_prof {
	int flags;       /* PAPI_PROFIL_* */
	int bucket;      /* bytes per bucket: 2, 4 or 8 */
	unsigned rnd;    /* PAPI_PROFIL_RANDOM state */
	int n;
	PAPI_sprofil_t r[]; /* n regions */
};

/* Largest scale (one bucket per byte) and smallest. */
#define TLY_PROF_SCALE_MAX 0x20000u
#define TLY_PROF_SCALE_MIN 0x2u

/* r is a catch-all bucket if it is the last region (pr_off 0, scale 0x2). */
static inline int tly_prof_is_catchall(const PAPI_sprofil_t *r)
{
	return r->pr_off == 0 && r->pr_scale == TLY_PROF_SCALE_MIN;
}

/* Copy n regions; NULL when out of memory (detail set). */
struct tly_prof *tly_prof_new(const PAPI_sprofil_t *r, int n, int flags);
/* Record a hit at pc with weight (>= 1, thresholds crossed). */
void tly_prof_hit(struct tly_prof *p, void *pc, long long weight);
/* Bucket index of pc in region r, or -1 outside (exposed for tests). */
long long tly_prof_bucket(const PAPI_sprofil_t *r, int bucket_bytes, void *pc);

#endif /* TALLY_CORE_PROFIL_H */
