/*
 * id_pool.c - lowest-free ids without a scan.  PAPI hands out the lowest
 * free event-set id; scanning the table for it made n creations cost
 * O(n^2) (32,000 sets took a second).  A binary min-heap of the freed ids
 * keeps the same order at O(log n) per call.
 */
#include "core/id_pool.h"

#include <stdlib.h>

static void swap(int *a, int *b)
{
	int t = *a;

	*a = *b;
	*b = t;
}

static void sift_down(struct tly_id_pool *p, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < p->n && p->heap[l] < p->heap[m])
			m = l;
		if (r < p->n && p->heap[r] < p->heap[m])
			m = r;
		if (m == i)
			return;
		swap(&p->heap[i], &p->heap[m]);
		i = m;
	}
}

int tly_id_take(struct tly_id_pool *p)
{
	int id;

	if (p->n == 0)
		return p->next < p->limit ? p->next++ : -1;
	id = p->heap[0];
	p->heap[0] = p->heap[--p->n];
	sift_down(p, 0);
	return id;
}

int tly_id_give(struct tly_id_pool *p, int id)
{
	int i;

	if (id == p->next - 1 && p->n == 0) {
		p->next--;   /* the common create/destroy pair stays heap-free */
		return 0;
	}
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 64;
		int *h = realloc(p->heap, (size_t)cap * sizeof *h);

		if (!h)
			return -1;
		p->heap = h;
		p->cap = cap;
	}
	i = p->n++;
	p->heap[i] = id;
	while (i > 0 && p->heap[(i - 1) / 2] > p->heap[i]) {
		swap(&p->heap[(i - 1) / 2], &p->heap[i]);
		i = (i - 1) / 2;
	}
	return 0;
}

void tly_id_reset(struct tly_id_pool *p)
{
	free(p->heap);
	p->heap = NULL;
	p->n = p->cap = p->next = 0;
}
