/*
 * rt_scopes.c - the functions (DW_TAG_subprogram) and inlined instances
 * (DW_TAG_inlined_subroutine) of a compilation unit, indexed once per unit
 * for the naming of code addresses: OpenMP regions and MPI call sites
 * (rt_srcname.c), sampled addresses (sampling/samp_rows.c).
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
 * The same walks made the naming of LULESH's ~30 OpenMP regions cost each
 * rank ~85 ms of CPU (rt_srcname.c walked its unit two or three times an
 * address: 12% of the job's CPU at 8 ranks x 1 thread, 30 Nov 2026).
 *
 * Partial units a unit imports (DW_TAG_imported_unit, as dwz makes them
 * for Debian's -dbg packages) are walked as part of it.  No lock of its
 * own: each user's index is under that user's lock.
 */
#ifdef TALLY_HAVE_LIBDW
#include "runtime/rt_scopes.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* Imported units followed within one another at most this deep. */
#define IMPORT_DEPTH 8

struct ent {
	Dwarf_Die die;
	int32_t parent;     /* enclosing entry, -1: none */
	int32_t encl;       /* a nested function's root: the entry its DIE is in, -1: none */
	int32_t end;        /* one past its last nested entry (entries in DIE order) */
	int32_t depth;      /* DIE nesting depth: the innermost is the deepest */
	uint32_t r0, nr;    /* its ranges in unit.r */
};

struct tly_rt_scope_unit {
	struct ent *e;
	int32_t n, cap;
	Dwarf_Addr (*r)[2];
	uint32_t nr, rcap;
};

static int add_range(struct tly_rt_scope_unit *u, Dwarf_Addr lo, Dwarf_Addr hi)
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
static int32_t add_entry(struct tly_rt_scope_unit *u, Dwarf_Die *die, int32_t parent, int32_t depth)
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
	u->e[u->n] = (struct ent){ .die = *die, .parent = parent, .encl = -1, .end = u->n + 1, .depth = depth,
				   .r0 = r0, .nr = u->nr - r0 };
	return u->n++;
}

/* A function nested in another one (GCC's outlined OpenMP bodies, GNU C
 * and Fortran internal procedures) has code of its own, outside its
 * parent's ranges: it is walked after its parent's tree, as a tree of its
 * own, so that each tree's entries stay within its root's ranges. */
struct nested {
	Dwarf_Die die;
	int32_t depth, imports, encl;
};

struct build {
	struct tly_rt_scope_unit *u;
	struct nested *later;
	int32_t n, cap;
};

static void defer(struct build *b, Dwarf_Die *die, int32_t depth, int imports, int32_t encl)
{
	if (b->n == b->cap) {
		int32_t cap = b->cap ? b->cap * 2 : 16;
		struct nested *m = realloc(b->later, sizeof *m * (size_t)cap);

		if (!m)
			return;
		b->later = m;
		b->cap = cap;
	}
	b->later[b->n++] = (struct nested){ .die = *die, .depth = depth, .imports = imports, .encl = encl };
}

static void walk(struct build *b, Dwarf_Die *die, int32_t enclosing, int32_t depth, int imports);

/* die, a function or an inlined instance, and what it holds. */
static void instance(struct build *b, Dwarf_Die *die, int32_t enclosing, int32_t depth, int imports)
{
	struct tly_rt_scope_unit *u = b->u;
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
			defer(b, &child, depth, imports, enclosing);
		} else if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			instance(b, &child, enclosing, depth, imports);
		} else {
			walk(b, &child, enclosing, depth + 1, imports);
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

/* The index of the unit whose DIE is at key, or where it would go. */
static int32_t find(const struct tly_rt_scopes *x, uintptr_t key, int *found)
{
	int32_t lo = 0, hi = x->n;

	while (lo < hi) {
		int32_t mid = lo + (hi - lo) / 2;

		if (x->of[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < x->n && x->of[lo].key == key;
	return lo;
}

static struct tly_rt_scope_unit *unit_of(struct tly_rt_scopes *x, Dwarf_Die *cu)
{
	uintptr_t key = (uintptr_t)cu->addr;
	int found;
	int32_t at = find(x, key, &found);
	struct tly_rt_scope_unit *u;

	if (found)
		return x->units[x->of[at].unit];
	if (x->n == x->cap) {
		int32_t cap = x->cap ? x->cap * 2 : 64;
		struct tly_rt_scope_unit **m = realloc(x->units, sizeof *m * (size_t)cap);
		void *of;

		if (!m)
			return NULL;
		x->units = m;
		if (!(of = realloc(x->of, sizeof *x->of * (size_t)cap)))
			return NULL;
		x->of = of;
		x->cap = cap;
	}
	if (!(u = calloc(1, sizeof *u)))
		return NULL;
	{
		struct build b = { .u = u };

		walk(&b, cu, -1, 0, 0);
		for (int32_t k = 0; k < b.n; k++) {   /* nested functions: more may be found */
			struct nested n = b.later[k];
			int32_t root = u->n;

			instance(&b, &n.die, -1, n.depth, n.imports);
			if (root < u->n)
				u->e[root].encl = n.encl;
		}
		free(b.later);
	}
	memmove(&x->of[at + 1], &x->of[at], sizeof *x->of * (size_t)(x->n - at));
	x->of[at].key = key;
	x->of[at].unit = x->n;
	x->units[x->n++] = u;
	return u;
}

static int contains(const struct tly_rt_scope_unit *u, const struct ent *e, Dwarf_Addr pc)
{
	for (uint32_t k = e->r0; k < e->r0 + e->nr; k++)
		if (pc >= u->r[k][0] && pc < u->r[k][1])
			return 1;
	return 0;
}

int tly_rt_scopes_at(struct tly_rt_scopes *x, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out, int max,
		     Dwarf_Die *encl, int *has_encl)
{
	struct tly_rt_scope_unit *u;
	int32_t best = -1, last = -1;
	int n = 0;

	if (has_encl)
		*has_encl = 0;
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
		last = i;
		if (dwarf_tag(&u->e[i].die) == DW_TAG_subprogram)
			break;
	}
	if (encl && has_encl && last >= 0)   /* the function whose DIE holds this one's */
		for (int32_t i = u->e[last].encl; i >= 0; i = u->e[i].parent)
			if (dwarf_tag(&u->e[i].die) == DW_TAG_subprogram) {
				*encl = u->e[i].die;
				*has_encl = 1;
				break;
			}
	return n;
}

void tly_rt_scopes_free(struct tly_rt_scopes *x)
{
	if (!x)
		return;
	for (int32_t i = 0; i < x->n; i++) {
		free(x->units[i]->e);
		free(x->units[i]->r);
		free(x->units[i]);
	}
	free(x->units);
	free(x->of);
	*x = (struct tly_rt_scopes){ 0 };
}
#endif
