/* count_table.h - the apps tests' MPI counters: one row per function,
 * written as "name calls sent received" lines, one file per rank.
 * Shared by the C and Fortran counters (count_mpi_c.c, count_mpi_f.c),
 * nothing of the runtime's. */
#ifndef TLY_APPS_COUNT_TABLE_H
#define TLY_APPS_COUNT_TABLE_H

#include <stdio.h>
#include <stdlib.h>

struct cnt_row {
	long long calls, sent, recv;
};

static inline void cnt_add(struct cnt_row *r, long long s, long long v)
{
	__atomic_add_fetch(&r->calls, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&r->sent, s, __ATOMIC_RELAXED);
	__atomic_add_fetch(&r->recv, v, __ATOMIC_RELAXED);
}

/* $TLY_APPS_COUNT_DIR/<tag>.<rank>.txt (created new: never overwrites) */
static inline void cnt_write(const char *tag, int rank, const char *const *names,
			     const struct cnt_row *rows, int n)
{
	const char *dir = getenv("TLY_APPS_COUNT_DIR");
	char path[4096];
	FILE *f;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof path, "%s/%s.%d.txt", dir, tag, rank);
	f = fopen(path, "wx");
	if (!f) {
		perror(path);
		return;
	}
	for (int i = 0; i < n; i++)
		if (rows[i].calls)
			fprintf(f, "%s %lld %lld %lld\n", names[i], rows[i].calls,
				rows[i].sent, rows[i].recv);
	fclose(f);
}

#endif
