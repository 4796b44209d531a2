/*
 * synth_paths.h - synthetic per-rank region paths for the unification
 * tests and the scale simulation.  Keys have the runtime's form
 * ("<kind>\x1e<name>" per node, joined by '\x1f'); a parent precedes its
 * children.  Each rank lists `shared` paths every rank has, `variant` of a
 * pool of `pool` paths (which ones depends on the rank) and `unique` paths
 * no other rank has.
 */
#ifndef TALLY_SYNTH_PATHS_H
#define TALLY_SYNTH_PATHS_H

#include <stdio.h>

#include "output/names.h"

struct synth {
	int shared, variant, pool, unique;
	int shuffle;          /* nonzero: rank-dependent order of the shared paths */
};

static inline int synth_add(struct tly_names *out, const char *fmt, int a, int b)
{
	char key[256];

	snprintf(key, sizeof key, fmt, a, b);
	return tly_names_add(out, key) < 0 ? -1 : 0;
}

static inline int synth_leaf(int rank, struct tly_names *out, void *arg)
{
	const struct synth *s = arg;
	int bad = synth_add(out, "2\x1emain%.0d%.0d", 0, 0);

	for (int k = 0; k < s->shared; k++) {
		int i = s->shuffle ? (k + rank * 7) % s->shared : k;

		bad |= synth_add(out, "2\x1emain\x1f" "2\x1esolver_phase_%d%.0d", i / 32, 0);
		bad |= synth_add(out, "2\x1emain\x1f" "2\x1esolver_phase_%d\x1f" "2\x1e" "compute_kernel_%d",
				 i / 32, i % 32);
	}
	for (int k = 0; k < s->variant && s->pool; k++)
		bad |= synth_add(out, "2\x1emain\x1f" "2\x1eio_stage\x1f" "2\x1evariant_path_%d%.0d",
				 (rank * 37 + k) % s->pool, 0);
	for (int k = 0; k < s->unique; k++)
		bad |= synth_add(out, "2\x1emain\x1f" "2\x1erank_setup_%d\x1f" "2\x1estep_%d", rank, k);
	return bad ? -1 : 0;
}

#endif
