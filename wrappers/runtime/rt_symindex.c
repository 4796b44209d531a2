/*
 * rt_symindex.c - a module's function symbols sorted by address, searched
 * by bisection (rt_symindex.h).  The table is read once per module with
 * dwfl_module_getsym_info (values already moved by the module's load
 * bias).  Measured on Debian's cp2k (stripped: named from its libraries'
 * tables; 2 ranks, 1 kHz, ~1,900 addresses a rank): the end of a rank
 * (exit_ns) went from 166-169 ms, each address a walk of a whole table,
 * to 40-50 ms.
 */
#ifdef TALLY_HAVE_LIBDW
#include "runtime/rt_symindex.h"

#include <gelf.h>
#include <stdlib.h>

struct sym {
	Dwarf_Addr addr, size;
	const char *name;
	int rank;   /* at one address: 0 global, 1 weak, 2 other */
};

struct tly_rt_symmod {
	Dwfl_Module *m;
	struct sym *s;
	int32_t n;
};

static int by_addr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return (x->size == 0) - (y->size == 0);   /* a sized one first */
}

static int bind_rank(const GElf_Sym *s)
{
	switch (GELF_ST_BIND(s->st_info)) {
	case STB_GLOBAL:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

/* The module's function symbols, sorted, one per address (qsort is not
 * stable: the order above decides).  An empty table when it has none. */
static int index_module(struct tly_rt_symmod *mod)
{
	int n = dwfl_module_getsymtab(mod->m);
	int32_t k = 0;

	mod->s = NULL;
	mod->n = 0;   /* counts the distinct addresses below */
	if (n <= 1)
		return 0;
	if (!(mod->s = malloc(sizeof *mod->s * (size_t)n)))
		return -1;
	for (int i = 1; i < n; i++) {   /* 0 is the null symbol */
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod->m, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || sym.st_shndx == SHN_UNDEF || addr == 0 || (type != STT_FUNC && type != STT_GNU_IFUNC))
			continue;
		mod->s[k++] = (struct sym){ .addr = addr, .size = sym.st_size, .name = name, .rank = bind_rank(&sym) };
	}
	qsort(mod->s, (size_t)k, sizeof *mod->s, by_addr);
	for (int32_t i = 0; i < k; i++)   /* the first of each address */
		if (mod->n == 0 || mod->s[mod->n - 1].addr != mod->s[i].addr)
			mod->s[mod->n++] = mod->s[i];
	return 0;
}

static struct tly_rt_symmod *module(struct tly_rt_symindex *x, Dwfl_Module *m)
{
	for (int32_t i = 0; i < x->n; i++)
		if (x->mods[i].m == m)
			return &x->mods[i];
	if (x->n == x->cap) {
		int32_t cap = x->cap ? x->cap * 2 : 16;
		struct tly_rt_symmod *g = realloc(x->mods, sizeof *g * (size_t)cap);

		if (!g)
			return NULL;
		x->mods = g;
		x->cap = cap;
	}
	x->mods[x->n].m = m;
	if (index_module(&x->mods[x->n]) != 0)
		return NULL;
	return &x->mods[x->n++];
}

const char *tly_rt_symindex_name(struct tly_rt_symindex *x, Dwfl_Module *m, Dwarf_Addr pc, Dwarf_Addr *off)
{
	struct tly_rt_symmod *mod;
	int32_t lo = 0, hi, i;

	if (!x || !m || !(mod = module(x, m)) || mod->n == 0)
		return NULL;
	hi = mod->n;
	while (lo < hi) {   /* the first symbol above pc */
		int32_t mid = lo + (hi - lo) / 2;

		if (mod->s[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	/* the closest symbol below, if it holds pc; else one before it whose
	 * size reaches over it (a function holding another's entry) */
	for (i = lo - 1; i >= 0 && i >= lo - 8; i--) {
		const struct sym *s = &mod->s[i];

		if ((s->size == 0 && i == lo - 1) || pc - s->addr < s->size) {
			if (off)
				*off = pc - s->addr;
			return s->name;
		}
	}
	return NULL;
}

void tly_rt_symindex_free(struct tly_rt_symindex *x)
{
	if (!x)
		return;
	for (int32_t i = 0; i < x->n; i++)
		free(x->mods[i].s);
	free(x->mods);
	*x = (struct tly_rt_symindex){ 0 };
}
#endif
