/*
 * unify.c - one region table for the whole job.  Each rank lists its
 * distinct paths; rank 0 merges them in rank order (first occurrence wins,
 * so a parent always precedes its children) and broadcasts the list.
 */
#include "output/unify.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"

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

void tly_node_key(const struct tly_rt_thread *t, int32_t n, char *buf, size_t len)
{
	int32_t chain[512];
	int k = 0;
	size_t at = 0;

	for (int32_t c = n; c >= 0 && k < 512; c = t->nodes[c].parent)
		chain[k++] = c;
	buf[0] = '\0';
	for (int i = k - 1; i >= 0 && at + 1 < len; i--) {
		const struct tly_rt_node *nd = &t->nodes[chain[i]];
		int w = snprintf(buf + at, len - at, "%s%d\x1e%s", i == k - 1 ? "" : "\x1f", nd->kind, nd->name);

		if (w < 0)
			break;
		at += (size_t)w;
	}
}

/* Rank 0 merges every rank's keys, then all ranks get the merged list. */
static int merge(MPI_Comm comm, struct tly_names *local, struct tly_names *all)
{
	int rank, size, n = (int)local->len, total = 0;
	int *cnt = NULL, *dsp = NULL;
	char *recv = NULL;

	PMPI_Comm_rank(comm, &rank);
	PMPI_Comm_size(comm, &size);
	if (rank == 0) {
		cnt = calloc((size_t)size, sizeof *cnt);
		dsp = calloc((size_t)size, sizeof *dsp);
	}
	PMPI_Gather(&n, 1, MPI_INT, cnt, 1, MPI_INT, 0, comm);
	if (rank == 0) {
		for (int i = 0; i < size; i++) {
			dsp[i] = total;
			total += cnt[i];
		}
		recv = malloc((size_t)total + 1);
	}
	PMPI_Gatherv(local->buf, n, MPI_CHAR, recv, cnt, dsp, MPI_CHAR, 0, comm);
	for (int at = 0; rank == 0 && at < total; at += (int)strlen(recv + at) + 1)
		tly_names_add(all, recv + at);
	free(cnt);
	free(dsp);
	free(recv);
	n = (int)all->len;
	PMPI_Bcast(&n, 1, MPI_INT, 0, comm);
	if (rank != 0) {
		char *buf = malloc((size_t)n + 1);

		PMPI_Bcast(buf, n, MPI_CHAR, 0, comm);
		for (int at = 0; at < n; at += (int)strlen(buf + at) + 1)
			tly_names_add(all, buf + at);
		free(buf);
	} else {
		PMPI_Bcast(all->buf, n, MPI_CHAR, 0, comm);
	}
	return 0;
}

int tly_unify(void *comm, struct tly_rt_proc *p, struct tly_names *all, int32_t ***gid)
{
	struct tly_names local = { 0 };
	char key[8192];
	int k = 0;

	for (struct tly_rt_thread *t = p->threads; t; t = t->next)
		for (int32_t i = 0; i < t->nnodes; i++) {
			tly_node_key(t, i, key, sizeof key);
			tly_names_add(comm ? &local : all, key);
		}
	if (comm)
		merge(*(MPI_Comm *)comm, &local, all);
	tly_names_free(&local);
	*gid = calloc((size_t)p->nthreads + 1, sizeof **gid);
	if (!*gid)
		return -1;
	for (struct tly_rt_thread *t = p->threads; t; t = t->next, k++) {
		(*gid)[k] = calloc((size_t)t->nnodes + 1, sizeof ***gid);
		for (int32_t i = 0; (*gid)[k] && i < t->nnodes; i++) {
			tly_node_key(t, i, key, sizeof key);
			(*gid)[k][i] = tly_names_find(all, key);
		}
	}
	return 0;
}
