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

/* An OpenMP region's name is a few hundred bytes ("omp parallel @ f
 * (file:line) in g (file:line) ..."): hashing it cost ~0.3 us a visit,
 * a third of a visit's bookkeeping (LULESH: 500,000 visits of ~8 us a
 * rank).  Its pointer is the runtime's own and stable, so a
 * memo keyed by (pointer, parent, kind) finds it again without reading it;
 * a content lookup filled the entry, so two pointers to equal texts still
 * name one node. */
static int memo_kind(int kind)
{
	return kind >= TLY_RK_OMP_PARALLEL && kind <= TLY_RK_OMP_BARRIER;
}

static uint32_t memo_slot(int32_t parent, const char *name, int kind)
{
	/* all of the key mixed into the top bits: names are heap strings a
	 * few hundred bytes apart, parents small integers */
	uint64_t k = ((uint64_t)(uintptr_t)name + ((uint64_t)(uint32_t)parent << 40) + ((uint64_t)kind << 58))
		     * 0x9e3779b97f4a7c15ULL;

	_Static_assert((TLY_RX_MEMO & (TLY_RX_MEMO - 1)) == 0, "TLY_RX_MEMO is a power of two");
	return (uint32_t)(k >> 40) & (TLY_RX_MEMO - 1);
}

/* Linear probing over MEMO_PROBES slots: direct-mapped, two regions of one
 * loop that shared a slot missed at every visit and hashed their names
 * (LULESH 8 x 1: tly_rx_hash 29 samples beside this lookup's 41). */
#define MEMO_PROBES 4

int32_t tly_rx_memo_get(const struct tly_rt_thread *t, int32_t parent, const char *name, int kind)
{
	uint32_t at;

	if (!memo_kind(kind))
		return -1;
	at = memo_slot(parent, name, kind);
	for (int i = 0; i < MEMO_PROBES; i++, at = (at + 1) & (TLY_RX_MEMO - 1)) {
		const struct tly_rx_memo *e = &t->rx_memo[at];

		if (!e->name)
			return -1;
		if (e->name == name && e->parent == parent && e->kind == kind)
			return e->node;
	}
	return -1;
}

/* Into the key's own slot, else the first empty one of its probes, else
 * over the first (a slot once filled never empties: probing stops at an
 * empty slot only). */
void tly_rx_memo_put(struct tly_rt_thread *t, int32_t parent, const char *name, int kind, int32_t n)
{
	struct tly_rx_memo *e = NULL;
	uint32_t first, at;

	if (!memo_kind(kind) || n < 0)
		return;
	first = at = memo_slot(parent, name, kind);
	for (int i = 0; i < MEMO_PROBES && !e; i++, at = (at + 1) & (TLY_RX_MEMO - 1)) {
		struct tly_rx_memo *c = &t->rx_memo[at];

		if (!c->name || (c->name == name && c->parent == parent && c->kind == kind))
			e = c;
	}
	if (!e)
		e = &t->rx_memo[first];
	e->name = name;
	e->parent = parent;
	e->kind = kind;
	e->node = n;
}
