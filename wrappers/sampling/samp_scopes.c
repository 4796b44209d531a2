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
 * function they are inlined into: what the two walks gave.  A lookup skips
 * every subtree whose root does not hold the address (an instance's
 * nested ones lie within its ranges).  A function nested in another
 * (GCC's outlined OpenMP bodies) has code outside its parent's ranges: it
 * is a tree of its own here, where dwarf_getscopes found no scope for it.
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
	int32_t end;        /* one past its last nested entry (entries in DIE order) */
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
	u->e[u->n] = (struct ent){ .die = *die, .parent = parent, .end = u->n + 1, .depth = depth, .r0 = r0,
				   .nr = u->nr - r0 };
	return u->n++;
}

/* A function nested in another one (GCC's outlined OpenMP bodies, GNU C
 * and Fortran internal procedures) has code of its own, outside its
 * parent's ranges: it is walked after its parent's tree, as a tree of its
 * own, so that each tree's entries stay within its root's ranges. */
struct nested {
	Dwarf_Die die;
	int32_t depth, imports;
};

struct build {
	struct unit *u;
	struct nested *later;
	int32_t n, cap;
};

static void defer(struct build *b, Dwarf_Die *die, int32_t depth, int imports)
{
	if (b->n == b->cap) {
		int32_t cap = b->cap ? b->cap * 2 : 16;
		struct nested *m = realloc(b->later, sizeof *m * (size_t)cap);

		if (!m)
			return;
		b->later = m;
		b->cap = cap;
	}
	b->later[b->n++] = (struct nested){ .die = *die, .depth = depth, .imports = imports };
}

static void walk(struct build *b, Dwarf_Die *die, int32_t enclosing, int32_t depth, int imports);

/* die, a function or an inlined instance, and what it holds. */
static void instance(struct build *b, Dwarf_Die *die, int32_t enclosing, int32_t depth, int imports)
{
	struct unit *u = b->u;
	int32_t k = add_entry(u, die, enclosing, depth);

	walk(b, die, k >= 0 ? k : enclosing, depth + 1, imports);
	if (k >= 0)
		u->e[k].end = u->n;
}

static void walk(struct build *b, Dwarf_Die *die, int32_t enclosing, int32_t depth, int imports)
{
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_imported_unit) {
			Dwarf_Attribute a;
			Dwarf_Die pu;

			if (imports < IMPORT_DEPTH && dwarf_attr(&child, DW_AT_import, &a) && dwarf_formref_die(&a, &pu))
				walk(b, &pu, enclosing, depth + 1, imports + 1);
		} else if (tag == DW_TAG_subprogram && enclosing >= 0) {
			defer(b, &child, depth, imports);
		} else if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			instance(b, &child, enclosing, depth, imports);
		} else {
			walk(b, &child, enclosing, depth + 1, imports);
		}
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
	{
		struct build b = { .u = u };

		walk(&b, cu, -1, 0, 0);
		for (int32_t k = 0; k < b.n; k++) {   /* nested functions: more may be found */
			struct nested n = b.later[k];

			instance(&b, &n.die, -1, n.depth, n.imports);
		}
		free(b.later);
	}
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
	/* an instance's nested ones lie within its ranges: a subtree whose
	 * root does not hold pc is skipped */
	for (int32_t i = 0; i < u->n;)
		if (contains(u, &u->e[i], pc)) {
			if (best < 0 || u->e[i].depth > u->e[best].depth)
				best = i;
			i++;
		} else {
			i = u->e[i].end > i ? u->e[i].end : i + 1;
		}
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
