/*
 * samp_scopes.c - the functions (DW_TAG_subprogram) and inlined instances
 * (DW_TAG_inlined_subroutine) of a compilation unit, indexed once per unit
 * for the naming of sampled addresses (samp_rows.c).
 *
 * libdw's dwarf_getscopes walks a unit's whole DIE tree for each address,
 * and dwarf_getscopes_die walks it again for the instance's callers: with
 * a few thousand distinct addresses in a C++ unit of tens of thousands of
 * DIEs, that walking was most of the ~0.5 s a process spent naming its
 * samples at the end (LULESH, docs/sampling.md).  Here a unit is walked
 * once: each function or inlined instance that has code, its address
 * ranges and the function or instance it is nested in.  An address's
 * chain is then its innermost instance and its enclosing ones up to the
 * function they are inlined into: what the two walks gave.
 *
 * Partial units a unit imports (DW_TAG_imported_unit, as dwz makes them
 * for Debian's -dbg packages) are walked as part of it.  Runs at the
 * write, under samp_state.lock: no lock of its own.
 */
#include "sampling/samp_scopes.h"

#include <dwarf.h>
#include <stdlib.h>

/* Imported units followed within one another at most this deep. */
#define IMPORT_DEPTH 8

struct ent {
	Dwarf_Die die;
	int32_t parent;     /* enclosing entry, -1: none */
	int32_t depth;      /* DIE nesting depth: the innermost is the deepest */
	uint32_t r0, nr;    /* its ranges in unit.r */
};

struct unit {
	struct ent *e;
	int32_t n, cap;
	Dwarf_Addr (*r)[2];
	uint32_t nr, rcap;
};

static int add_range(struct unit *u, Dwarf_Addr lo, Dwarf_Addr hi)
{
	if (u->nr == u->rcap) {
		uint32_t cap = u->rcap ? u->rcap * 2 : 256;
		Dwarf_Addr(*r)[2] = realloc(u->r, sizeof *r * cap);

		if (!r)
			return -1;
		u->r = r;
		u->rcap = cap;
	}
	u->r[u->nr][0] = lo;
	u->r[u->nr][1] = hi;
	u->nr++;
	return 0;
}

/* The entry for die (a function or an inlined instance), -1 when it has
 * no code (a declaration, an abstract instance) or memory ran out. */
static int32_t add_entry(struct unit *u, Dwarf_Die *die, int32_t parent, int32_t depth)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	uint32_t r0 = u->nr;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0)
		if (hi > lo && add_range(u, lo, hi) != 0)
			break;
	if (u->nr == r0)
		return -1;
	if (u->n == u->cap) {
		int32_t cap = u->cap ? u->cap * 2 : 256;
		struct ent *e = realloc(u->e, sizeof *e * (size_t)cap);

		if (!e) {
			u->nr = r0;
			return -1;
		}
		u->e = e;
		u->cap = cap;
	}
	u->e[u->n] = (struct ent){ .die = *die, .parent = parent, .depth = depth, .r0 = r0, .nr = u->nr - r0 };
	return u->n++;
}

static void walk(struct unit *u, Dwarf_Die *die, int32_t enclosing, int32_t depth, int imports)
{
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		int32_t here = enclosing;

		if (tag == DW_TAG_imported_unit) {
			Dwarf_Attribute a;
			Dwarf_Die pu;

			if (imports < IMPORT_DEPTH && dwarf_attr(&child, DW_AT_import, &a) && dwarf_formref_die(&a, &pu))
				walk(u, &pu, enclosing, depth + 1, imports + 1);
			continue;
		}
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			int32_t k = add_entry(u, &child, enclosing, depth);

			if (k >= 0)
				here = k;
		}
		walk(u, &child, here, depth + 1, imports);
	} while (dwarf_siblingof(&child, &child) == 0);
}

static struct unit *unit_of(struct tly_samp_scopes *x, Dwarf_Die *cu)
{
	int64_t key = (int64_t)(uintptr_t)cu->addr;
	int32_t i = tly_samp_map_get(&x->of, key, 0);
	struct unit *u;

	if (i >= 0)
		return x->units[i];
	if (x->n == x->cap) {
		int32_t cap = x->cap ? x->cap * 2 : 64;
		struct unit **m = realloc(x->units, sizeof *m * (size_t)cap);

		if (!m)
			return NULL;
		x->units = m;
		x->cap = cap;
	}
	if (!(u = calloc(1, sizeof *u)))
		return NULL;
	walk(u, cu, -1, 0, 0);
	if (tly_samp_map_put(&x->of, key, 0, x->n) != 0) {
		free(u->e);
		free(u->r);
		free(u);
		return NULL;
	}
	x->units[x->n++] = u;
	return u;
}

static int contains(const struct unit *u, const struct ent *e, Dwarf_Addr pc)
{
	for (uint32_t k = e->r0; k < e->r0 + e->nr; k++)
		if (pc >= u->r[k][0] && pc < u->r[k][1])
			return 1;
	return 0;
}

int tly_samp_scopes_at(struct tly_samp_scopes *x, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out, int max)
{
	struct unit *u;
	int32_t best = -1;
	int n = 0;

	if (!x || !cu || !out || max <= 0 || !(u = unit_of(x, cu)))
		return 0;
	for (int32_t i = 0; i < u->n; i++)
		if ((best < 0 || u->e[i].depth > u->e[best].depth) && contains(u, &u->e[i], pc))
			best = i;
	for (int32_t i = best; i >= 0 && n < max; i = u->e[i].parent) {
		out[n++] = u->e[i].die;
		if (dwarf_tag(&u->e[i].die) == DW_TAG_subprogram)
			break;
	}
	return n;
}

void tly_samp_scopes_free(struct tly_samp_scopes *x)
{
	if (!x)
		return;
	for (int32_t i = 0; i < x->n; i++) {
		free(x->units[i]->e);
		free(x->units[i]->r);
		free(x->units[i]);
	}
	free(x->units);
	tly_samp_map_free(&x->of);
	*x = (struct tly_samp_scopes){ 0 };
}
