/*
 * trace_reqs.c - the MPI requests the trace follows (trace_reqs.h): per
 * map 16 shards by the handle's hash, each an open-addressing table
 * (linear probing) under its own mutex that doubles when 3/4 full.  A
 * lookup locks one shard for a probe of a few slots: threads posting and
 * completing requests at once rarely meet on a shard, and no signal
 * handler reaches these (only MPI calls' hooks do; a fork child drops
 * the hooks and never touches the maps).
 */
#include "trace/trace_reqs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define NSHARD 16
#define SHARD_MIN 64                /* slots of a shard's first table */
#define SHARD_MAX (1u << 24)        /* slots of a shard at most (16 x 12 M requests pending) */

struct shard {
	pthread_mutex_t lock;
	struct tly_trace_req *e;   /* cap slots, id 0: free */
	uint32_t cap, n;
};

static struct {
	struct shard s[TLY_REQS_MAPS][NSHARD];
	int ready;   /* the mutexes made (atomic) */
} rq;

static uint64_t hash(MPI_Request h)
{
	uint64_t v = 0;

	memcpy(&v, &h, sizeof h < sizeof v ? sizeof h : sizeof v);
	v ^= v >> 31;   /* a pointer's or an index's bits all reach the high ones */
	v *= 0x9E3779B97F4A7C15ull;
	return v ^ v >> 29;
}

static int same(MPI_Request a, MPI_Request b)
{
	return !memcmp(&a, &b, sizeof a);
}

void tly_trace_reqs_init(void)
{
	if (__atomic_load_n(&rq.ready, __ATOMIC_ACQUIRE))
		return;
	for (int m = 0; m < TLY_REQS_MAPS; m++)
		for (int i = 0; i < NSHARD; i++)
			pthread_mutex_init(&rq.s[m][i].lock, NULL);
	__atomic_store_n(&rq.ready, 1, __ATOMIC_RELEASE);
}

static struct shard *shard_of(int m, MPI_Request h)
{
	if (!__atomic_load_n(&rq.ready, __ATOMIC_ACQUIRE))
		return NULL;
	return &rq.s[m][hash(h) >> 60 & (NSHARD - 1)];
}

static uint32_t home(const struct shard *s, MPI_Request h)
{
	return (uint32_t)(hash(h) >> 20) & (s->cap - 1);
}

/* The slot of h (the first of its run), or the free slot where it would go. */
static uint32_t find(const struct shard *s, MPI_Request h)
{
	uint32_t i = home(s, h);

	while (s->e[i].id && !same(s->e[i].h, h))
		i = (i + 1) & (s->cap - 1);
	return i;
}

/* The first free slot of h's run. */
static uint32_t free_slot(const struct shard *s, MPI_Request h)
{
	uint32_t i = home(s, h);

	while (s->e[i].id)
		i = (i + 1) & (s->cap - 1);
	return i;
}

/* Of the entries of handle h in its run: l's oldest, else the oldest; -1: none. */
static int64_t pick(const struct shard *s, MPI_Request h, const struct tly_trace_loc *l)
{
	int64_t best = -1;

	for (uint32_t i = home(s, h); s->e[i].id; i = (i + 1) & (s->cap - 1)) {
		const struct tly_trace_req *e = &s->e[i], *b = best >= 0 ? &s->e[best] : NULL;

		if (!same(e->h, h))
			continue;
		if (!b || (e->l == l && (b->l != l || e->id < b->id)) || (b->l != l && e->id < b->id))
			best = i;
	}
	return best;
}

/* Room for one more entry: the table doubled (rehashed) at 3/4. */
static int room(struct shard *s)
{
	uint32_t cap = s->cap ? 2 * s->cap : SHARD_MIN;
	struct tly_trace_req *old = s->e, *e;

	if (s->cap && s->n + 1 <= s->cap / 4 * 3)
		return 0;
	if (cap > SHARD_MAX || !(e = calloc(cap, sizeof *e)))
		return s->cap && s->n + 1 < s->cap ? 0 : -1;   /* full only when no slot is left */
	s->e = e;
	s->cap = cap;
	for (uint32_t i = 0; old && i < cap / 2; i++)
		if (old[i].id)
			s->e[free_slot(s, old[i].h)] = old[i];
	free(old);
	return 0;
}

int tly_trace_reqs_put(int m, const struct tly_trace_req *e)
{
	struct shard *s = shard_of(m, e->h);
	int r = -1;

	if (!s || !e->id)
		return -1;
	pthread_mutex_lock(&s->lock);
	if (room(s) == 0) {
		uint32_t i = m == TLY_REQS_PERSISTENT ? find(s, e->h) : free_slot(s, e->h);

		s->n += !s->e[i].id;
		s->e[i] = *e;
		r = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return r;
}

/* Slot i emptied: the rest of its run moved up to where a lookup finds it. */
static void backshift(struct shard *s, uint32_t i)
{
	for (uint32_t j = (i + 1) & (s->cap - 1); s->e[j].id; j = (j + 1) & (s->cap - 1)) {
		struct tly_trace_req e = s->e[j];

		s->e[j].id = 0;
		s->e[free_slot(s, e.h)] = e;
	}
}

int tly_trace_reqs_get(int m, MPI_Request h, const struct tly_trace_loc *l, struct tly_trace_req *out, int take)
{
	struct shard *s = shard_of(m, h);
	int64_t i = -1;

	if (!s)
		return -1;
	pthread_mutex_lock(&s->lock);
	if (s->cap && (i = pick(s, h, l)) >= 0) {
		*out = s->e[i];
		if (take) {
			s->e[i].id = 0;
			s->n--;
			backshift(s, (uint32_t)i);
		}
	}
	pthread_mutex_unlock(&s->lock);
	return i >= 0 ? 0 : -1;
}

void tly_trace_reqs_free(void)
{
	if (!__atomic_load_n(&rq.ready, __ATOMIC_ACQUIRE))
		return;
	for (int m = 0; m < TLY_REQS_MAPS; m++)
		for (int i = 0; i < NSHARD; i++) {
			struct shard *s = &rq.s[m][i];

			if (pthread_mutex_trylock(&s->lock) != 0)
				continue;
			free(s->e);
			s->e = NULL;
			s->cap = s->n = 0;
			pthread_mutex_unlock(&s->lock);
		}
}
