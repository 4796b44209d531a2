/*
 * out_rows.c - the rows of every writer module (out_module.h): built in
 * the order of the generated module list, each module's rows kept only
 * for the tables it declares.  Their extra datasets are written by the
 * writer library after the tables (tly_out_modules_write, h5_host.c).
 */
#include "output/out_rows.h"

#include <stdlib.h>
#include <string.h>

#include "output/out_host.h"

void *tly_rows_alloc(struct tly_rows *r, int tid, int64_t n, size_t size)
{
	r->t[tid] = calloc((size_t)(n ? n : 1), size);
	r->n[tid] = r->t[tid] ? n : 0;
	return r->t[tid];
}

static int declares(const struct tly_out_module *m, int tid)
{
	for (const enum tly_table *t = m->tables; *t != TLY_NTABLES; t++)
		if ((int)*t == tid)
			return 1;
	return 0;
}

/* A module's rows of a table it did not declare are a bug of that module:
 * dropped (and said) rather than written over another module's. */
static void take(const struct tly_out_module *m, struct tly_rows *mine, struct tly_rows *r)
{
	for (int i = 0; i < TLY_NTABLES; i++) {
		if (!mine->t[i])
			continue;
		if (!declares(m, i) || r->t[i]) {
			tly_out_log(1, "writer module %s filled table %s it does not own; dropped", m->name,
				    tly_h5_table_names[i]);
			free(mine->t[i]);
			continue;
		}
		r->t[i] = mine->t[i];
		r->n[i] = mine->n[i];
	}
}

void tly_out_rows_build(const struct tly_out_ctx *c, struct tly_rows *r)
{
	memset(r, 0, sizeof *r);
	for (int k = 0; tly_out_modules[k]; k++) {
		struct tly_rows mine = { 0 };

		tly_out_modules[k]->rows(c, &mine);
		take(tly_out_modules[k], &mine, r);
	}
}

void tly_out_rows_free(struct tly_rows *r)
{
	for (int i = 0; i < TLY_NTABLES; i++)
		free(r->t[i]);
}
