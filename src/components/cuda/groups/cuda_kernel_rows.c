/*
 * cuda_kernel_rows.c - the per-kernel rows of a group between two reads:
 * a growable table (no ceiling: a row is nv doubles and a pointer), names
 * interned once per group (a framework repeats a few kernels, each name
 * up to kilobytes).  A read takes rows from the front; rows past the
 * reader's capacity stay for the next read.
 */
#include "cuda_groups_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tally_shared.h"

/* The project's one hash (tally_shared.h). */
static size_t hash(const char *s)
{
	return (size_t)tly_fnv1a(TLY_FNV_BASIS, s, strlen(s));
}

static int grow_names(struct tly_cu_krows *k)
{
	size_t cap = k->ncap ? 2 * k->ncap : 64;
	char **t = calloc(cap, sizeof *t);

	if (!t)
		return -1;
	for (size_t i = 0; i < k->ncap; i++) {
		size_t j = k->names[i] ? hash(k->names[i]) % cap : 0;

		while (k->names[i] && t[j])
			j = (j + 1) % cap;
		if (k->names[i])
			t[j] = k->names[i];
	}
	free(k->names);
	k->names = t;
	k->ncap = cap;
	return 0;
}

/* The group's copy of name (NULL when out of memory). */
static const char *intern(struct tly_cu_krows *k, const char *name)
{
	size_t j;

	if (2 * (k->nnames + 1) > k->ncap && grow_names(k) != 0)
		return NULL;
	for (j = hash(name) % k->ncap; k->names[j]; j = (j + 1) % k->ncap)
		if (!strcmp(k->names[j], name))
			return k->names[j];
	if (!(k->names[j] = strdup(name)))
		return NULL;
	k->nnames++;
	return k->names[j];
}

int tly_cu_krows_add(struct tly_cu_krows *k, const char *name, const double *vals, int nv)
{
	const char *nm;

	if (k->nv != nv) {   /* the group's events changed while it was disabled */
		if (k->n)
			return -1;
		free(k->row);
		free(k->v);
		k->row = NULL;
		k->v = NULL;
		k->cap = 0;
		k->nv = nv;
	}
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 1024;
		const char **r = realloc(k->row, cap * sizeof *r);
		double *v = r ? realloc(k->v, cap * (size_t)nv * sizeof *v) : NULL;

		if (r)
			k->row = r;
		if (!r || !v)
			return -1;
		k->v = v;
		k->cap = cap;
	}
	if (!(nm = intern(k, name ? name : "?")))
		return -1;
	k->row[k->n] = nm;
	memcpy(&k->v[k->n * (size_t)nv], vals, (size_t)nv * sizeof *vals);
	k->n++;
	return 0;
}

size_t tly_cu_krows_pending(const struct tly_cu_krows *k)
{
	return k->n - k->head;
}

size_t tly_cu_krows_take(struct tly_cu_krows *k, size_t max, int nv, char *names, size_t name_len, char **dups,
			 double *values)
{
	size_t n = tly_cu_krows_pending(k) < max ? tly_cu_krows_pending(k) : max;

	for (size_t r = 0; r < n; r++) {
		size_t at = k->head + r;

		if (names && name_len)
			snprintf(names + r * name_len, name_len, "%s", k->row[at]);
		if (dups)
			dups[r] = strdup(k->row[at]);
		if (values)
			memcpy(values + r * (size_t)nv, &k->v[at * (size_t)nv], (size_t)nv * sizeof *values);
	}
	k->head += n;
	if (k->head == k->n)
		k->head = k->n = 0;
	return n;
}

void tly_cu_krows_clear(struct tly_cu_krows *k)
{
	k->head = k->n = 0;
}

void tly_cu_krows_free(struct tly_cu_krows *k)
{
	for (size_t i = 0; i < k->ncap; i++)
		free(k->names[i]);
	free(k->names);
	free(k->row);
	free(k->v);
	memset(k, 0, sizeof *k);
}
