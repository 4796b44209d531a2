/*
 * nvtx_arena.c - the bump allocator of NVTX records (struct tly_nv_arena,
 * nvtx.h): chunks of 64 KiB (or one payload's size), freed together.
 * Owned by one thread's records (nvtx_store.c) or one decode call
 * (nvtx_decode.c), so it takes no lock.
 */
#include "nvtx/nvtx.h"

#include <stdlib.h>

#define CHUNK (64 * 1024)

struct tly_nv_chunk { struct tly_nv_chunk *next; size_t cap; _Alignas(16) unsigned char data[]; };

void *tly_nv_alloc(struct tly_nv_arena *a, size_t n)
{
	void *p;

	n = (n + 15) & ~(size_t)15;
	if (!a->head || a->used + n > a->cap) {
		size_t cap = n > CHUNK ? n : CHUNK;
		struct tly_nv_chunk *c = malloc(sizeof *c + cap);

		if (!c)
			return NULL;
		c->next = a->head;
		c->cap = cap;
		a->head = c;
		a->used = 0;
		a->cap = cap;
	}
	p = a->head->data + a->used;
	a->used += n;
	return p;
}

void tly_nv_arena_free(struct tly_nv_arena *a)
{
	while (a->head) {
		struct tly_nv_chunk *n = a->head->next;

		free(a->head);
		a->head = n;
	}
	a->used = a->cap = 0;
}
