/*
 * names.c - an ordered set of keys: ids in order of first insertion, an
 * open-addressing hash for look-ups.  Pure (no MPI): the job-wide
 * unification (unify.c) and its simulation (testsuite/bench) share it.
 */
#include "output/names.h"

#include <stdlib.h>
#include <string.h>

#include "tally_shared.h"

static uint64_t hash(const char *s)
{
	return tly_fnv1a(TLY_FNV_BASIS, s, strlen(s));
}

static int grow_table(struct tly_names *nm)
{
	int cap = nm->tabcap ? nm->tabcap * 2 : 1024;
	int *tab = calloc((size_t)cap, sizeof *tab);

	if (!tab)
		return -1;
	for (int i = 0; i < nm->n; i++) {
		uint64_t h = hash(tly_names_key(nm, i)) & (uint64_t)(cap - 1);

		while (tab[h])
			h = (h + 1) & (uint64_t)(cap - 1);
		tab[h] = i + 1;
	}
	free(nm->tab);
	nm->tab = tab;
	nm->tabcap = cap;
	return 0;
}

int tly_names_find(const struct tly_names *nm, const char *key)
{
	if (!nm->tabcap)
		return -1;
	for (uint64_t h = hash(key) & (uint64_t)(nm->tabcap - 1); nm->tab[h];
	     h = (h + 1) & (uint64_t)(nm->tabcap - 1))
		if (!strcmp(tly_names_key(nm, nm->tab[h] - 1), key))
			return nm->tab[h] - 1;
	return -1;
}

static int append(struct tly_names *nm, const char *key)
{
	size_t k = strlen(key) + 1;

	if (nm->len + k > nm->cap) {
		size_t cap = (nm->cap + k) * 2;
		char *b = realloc(nm->buf, cap);

		if (!b)
			return -1;
		nm->buf = b;
		nm->cap = cap;
	}
	if (nm->n == nm->ncap) {
		int ncap = nm->ncap ? nm->ncap * 2 : 256;
		size_t *o = realloc(nm->off, (size_t)ncap * sizeof *o);

		if (!o)
			return -1;
		nm->off = o;
		nm->ncap = ncap;
	}
	memcpy(nm->buf + nm->len, key, k);
	nm->off[nm->n] = nm->len;
	nm->len += k;
	return nm->n++;
}

int tly_names_add(struct tly_names *nm, const char *key)
{
	int id = tly_names_find(nm, key);

	if (id >= 0)
		return id;
	if ((nm->n + 1) * 2 > nm->tabcap && grow_table(nm))
		return -1;
	id = append(nm, key);
	if (id < 0)
		return -1;
	uint64_t h = hash(key) & (uint64_t)(nm->tabcap - 1);
	while (nm->tab[h])
		h = (h + 1) & (uint64_t)(nm->tabcap - 1);
	nm->tab[h] = id + 1;
	return id;
}

void tly_names_free(struct tly_names *nm)
{
	free(nm->buf);
	free(nm->off);
	free(nm->tab);
	memset(nm, 0, sizeof *nm);
}
