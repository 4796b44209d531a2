/*
 * gpu_dev_rows.c - the gpu_devices table: one row per rank and CUDA
 * context bound under GPU metrics (gpu_bind.c), with the GPU's physical
 * identity, so a file says which GPU each rank measured.
 */
#include "output/out_module.h"

#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_bind.h"

void tly_gpu_dev_rows(const struct tly_out_ctx *c, struct tly_rows *r);

void tly_gpu_dev_rows(const struct tly_out_ctx *c, struct tly_rows *r)
{
	int nb = 0;
	const struct tly_gpu_bind *b = c->partial ? NULL : tly_gpu_bind_all(&nb);
	struct tly_row_gpu_devices *rows = calloc((size_t)nb + 1, sizeof *rows);
	int64_t n = 0;

	for (int i = 0; rows && b && i < nb; i++) {
		struct tly_row_gpu_devices *x = &rows[n++];

		x->rank = c->p->rank;
		x->device = b[i].device;
		snprintf(x->uuid, sizeof x->uuid, "%s", b[i].uuid);
		snprintf(x->pci_bus_id, sizeof x->pci_bus_id, "%s", b[i].pci);
		snprintf(x->name, sizeof x->name, "%s", b[i].name);
		x->profiled = b[i].state;
		x->owner_rank = b[i].owner_rank;
		x->owner_pid = b[i].owner_pid;
		x->launches = b[i].seen;
	}
	r->t[TLY_T_gpu_devices] = rows;
	r->n[TLY_T_gpu_devices] = rows ? n : 0;
}
