/*
 * region_index.c - hashed children.  Looking a name up among its parent's
 * children by walking the sibling list made n distinct names under one
 * parent cost O(n^2) (40,000 names: 7.7 s; 200,000 NVTX names did not
 * finish).  Linear probing over a power-of-two table at most half full.
 */
#include "regions/region_index.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tally_shared.h"

uint32_t tly_rx_hash(int32_t parent, const char *name, int kind)
{
	uint64_t h = tly_fnv1a(TLY_FNV_BASIS, &parent, sizeof parent);

	h = tly_fnv1a(h, &kind, sizeof kind);
	if (kind == TLY_RK_MPI)
		h = tly_fnv1a(h, &name, sizeof name);
	else
		h = tly_fnv1a(h, name, strlen(name));
	return (uint32_t)(h ^ (h >> 32));
}

static int same(const struct tly_rt_node *n, int32_t parent, const char *name, int kind)
{
	/* MPI region names come from the generated static table: the pointer
	 * identifies them; other callers' buffers may be reused */
	return n->parent == parent && n->kind == kind &&
	       (kind == TLY_RK_MPI ? n->key == name : !strcmp(n->name, name));
}

int32_t tly_rx_find(const struct tly_rt_thread *t, int32_t parent, const char *name, int kind, uint32_t h)
{
	uint32_t mask = t->hcap - 1;

	if (!t->hcap)
		return -1;
	for (uint32_t i = h & mask;; i = (i + 1) & mask) {
		int32_t n = t->htab[i];

		if (n < 0)
			return -1;
		if (t->nodes[n].hash == h && same(&t->nodes[n], parent, name, kind))
			return n;
	}
}

static void put(int32_t *tab, uint32_t cap, uint32_t h, int32_t n)
{
	uint32_t i = h & (cap - 1);

	while (tab[i] >= 0)
		i = (i + 1) & (cap - 1);
	tab[i] = n;
}

static int grow(struct tly_rt_thread *t)
{
	uint32_t cap = t->hcap ? t->hcap * 2 : 256;
	int32_t *tab = malloc(cap * sizeof *tab);

	if (!tab)
		return -1;
	memset(tab, 0xff, cap * sizeof *tab);   /* -1: empty */
	for (uint32_t i = 0; i < t->hcap; i++)
		if (t->htab[i] >= 0)
			put(tab, cap, t->nodes[t->htab[i]].hash, t->htab[i]);
	free(t->htab);
	t->htab = tab;
	t->hcap = cap;
	return 0;
}

int tly_rx_add(struct tly_rt_thread *t, int32_t n)
{
	if ((uint32_t)(t->nhashed + 1) * 2 > t->hcap && grow(t) != 0)
		return -1;
	put(t->htab, t->hcap, t->nodes[n].hash, n);
	t->nhashed++;
	return 0;
}
