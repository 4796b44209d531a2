/*
 * mpi_sites.c - MPI call sites, mpiP style (TALLY_MPI_CALLSITES=frames):
 * calls, time and bytes per MPI function and calling stack.  Frame 1 is
 * the wrapper's return address (free: the generated wrapper passes
 * __builtin_return_address(0)); deeper frames come from backtrace(),
 * which costs microseconds, so only a depth above 1 pays for it.
 *
 * Per thread an open-addressing table, keyed by (function, frames), grows
 * when half full: no lock, an allocation only for a site seen first.  The
 * writer merges the threads' tables per rank and names each address once
 * (runtime/rt_srcname.c, cached here per address).
 */
#include "mpi/mpi_support.h"
#include "mpi/mpi_thread.h"
#include "runtime/rt_srcname.h"

#include <execinfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/h5_schema.h"

struct tly_mpi_site {
	uintptr_t pc[TLY_RT_SITE_DEPTH];
	int32_t id;           /* MPI function + 1 (0: empty slot) */
	int64_t calls, time_ns, sent, recv;
};

struct tly_mpi_sites {
	struct tly_mpi_site *slot;
	uint32_t cap, n;
};

void tly_mpi_site_frames(const void *ra, int depth, uintptr_t *pc)
{
	void *bt[TLY_RT_SITE_DEPTH + 8];
	int n, i = 0;

	memset(pc, 0, sizeof *pc * TLY_RT_SITE_DEPTH);
	pc[0] = (uintptr_t)ra;
	if (depth <= 1)
		return;
	n = backtrace(bt, TLY_RT_SITE_DEPTH + 8);
	while (i < n && bt[i] != ra)   /* frames below the wrapper's caller */
		i++;
	for (int k = 1; k < depth && i + k < n; k++)
		pc[k] = (uintptr_t)bt[i + k];
}

static uint32_t site_hash(int id, const uintptr_t *pc)
{
	uint64_t h = (uint64_t)id * 0x9e3779b97f4a7c15ULL;

	for (int k = 0; k < TLY_RT_SITE_DEPTH && pc[k]; k++)
		h = (h ^ pc[k]) * 0xff51afd7ed558ccdULL;
	return (uint32_t)(h ^ h >> 32);
}

static struct tly_mpi_site *find(struct tly_mpi_sites *s, int id, const uintptr_t *pc)
{
	for (uint32_t i = site_hash(id, pc) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
		struct tly_mpi_site *e = &s->slot[i];

		if (!e->id || (e->id == id + 1 && !memcmp(e->pc, pc, sizeof e->pc)))
			return e;
	}
}

static int grow(struct tly_mpi_sites *s)
{
	struct tly_mpi_sites bigger = { calloc(s->cap ? s->cap * 2 : 64, sizeof *s->slot),
					s->cap ? s->cap * 2 : 64, s->n };

	if (!bigger.slot)
		return -1;
	for (uint32_t i = 0; i < s->cap; i++)
		if (s->slot[i].id)
			*find(&bigger, s->slot[i].id - 1, s->slot[i].pc) = s->slot[i];
	free(s->slot);
	*s = bigger;
	return 0;
}

void tly_mpi_site_add(struct tly_rt_thread *t, int id, const uintptr_t *pc, int64_t dt, int64_t sent,
		      int64_t recv)
{
	struct tly_mpi_sites *s = tly_mpi_thread(t)->sites;
	struct tly_mpi_site *e;

	if (!s && !(s = tly_mpi_thread(t)->sites = calloc(1, sizeof *s)))
		return;
	if ((s->n + 1) * 2 > s->cap && grow(s))
		return;
	e = find(s, id, pc);
	if (!e->id) {
		e->id = id + 1;
		memcpy(e->pc, pc, sizeof e->pc);
		s->n++;
	}
	e->calls++;
	e->time_ns += dt;
	e->sent += sent;
	e->recv += recv;
}

/* ---- rows of the file ----------------------------------------------- */

struct name_cache {
	uintptr_t pc;
	char name[TLY_RT_NAME], raw[64];
};

/* Name of one return address, resolved once per address. */
static const struct name_cache *name_of(struct name_cache **c, size_t *n, uintptr_t pc)
{
	struct name_cache *e;

	for (size_t i = 0; i < *n; i++)
		if ((*c)[i].pc == pc)
			return &(*c)[i];
	if (!(e = realloc(*c, (*n + 1) * sizeof **c)))
		return NULL;
	*c = e;
	e = &e[(*n)++];
	e->pc = pc;
	tly_rt_srcname((const void *)pc, 1, e->name, sizeof e->name, e->raw, sizeof e->raw);
	return e;
}

static void describe(struct tly_row_mpi_sites *row, const struct tly_mpi_site *e, struct name_cache **c,
		     size_t *nc)
{
	size_t a = 0, b = 0;

	for (int k = 0; k < TLY_RT_SITE_DEPTH && e->pc[k]; k++) {
		const struct name_cache *nm = name_of(c, nc, e->pc[k]);
		const char *sep = k ? " < " : "";

		if (!nm)
			break;
		if (a < sizeof row->site)
			a += (size_t)snprintf(row->site + a, sizeof row->site - a, "%s%s", sep, nm->name);
		if (b < sizeof row->address)
			b += (size_t)snprintf(row->address + b, sizeof row->address - b, "%s%s", sep, nm->raw);
	}
}

/* Add one thread's site to the rank's rows (same function and frames:
 * one row). */
static void merge(struct tly_mpi_site *rank_sites, int64_t *n, const struct tly_mpi_site *e)
{
	for (int64_t i = 0; i < *n; i++)
		if (rank_sites[i].id == e->id && !memcmp(rank_sites[i].pc, e->pc, sizeof e->pc)) {
			rank_sites[i].calls += e->calls;
			rank_sites[i].time_ns += e->time_ns;
			rank_sites[i].sent += e->sent;
			rank_sites[i].recv += e->recv;
			return;
		}
	rank_sites[(*n)++] = *e;
}

void tly_mpi_site_rows(struct tly_rt_proc *p, struct tly_rows *r)
{
	struct tly_mpi_site *all;
	struct tly_row_mpi_sites *rows;
	struct name_cache *cache = NULL;
	size_t ncache = 0;
	int64_t total = 0, n = 0;

	for (struct tly_rt_thread *t = p->threads; t; t = t->next)
		total += tly_mpi_thread(t)->sites ? tly_mpi_thread(t)->sites->n : 0;
	all = calloc((size_t)(total ? total : 1), sizeof *all);
	rows = calloc((size_t)(total ? total : 1), sizeof *rows);
	r->t[TLY_T_mpi_sites] = rows;
	r->n[TLY_T_mpi_sites] = 0;
	if (!all || !rows) {
		free(all);
		return;
	}
	for (struct tly_rt_thread *t = p->threads; t; t = t->next) {
		const struct tly_mpi_sites *s = tly_mpi_thread(t)->sites;

		for (uint32_t i = 0; s && i < s->cap; i++)
			if (s->slot[i].id)
				merge(all, &n, &s->slot[i]);
	}
	for (int64_t i = 0; i < n; i++) {
		rows[i].rank = p->rank;
		snprintf(rows[i].function, sizeof rows[i].function, "%s", tly_mpi_names[all[i].id - 1]);
		describe(&rows[i], &all[i], &cache, &ncache);
		rows[i].calls = all[i].calls;
		rows[i].time_ns = all[i].time_ns;
		rows[i].bytes_sent = all[i].sent;
		rows[i].bytes_recv = all[i].recv;
	}
	r->n[TLY_T_mpi_sites] = n;
	free(all);
	free(cache);
}
