/*
 * unify.h - region paths unified across threads and ranks.  A path key is
 * "<kind>\x1e<name>" per node from the root, joined by '\x1f'.
 */
#ifndef TALLY_UNIFY_H
#define TALLY_UNIFY_H

#include <stddef.h>
#include <stdint.h>

#include "output/names.h"
#include "output/out_records.h"

/* Key of node n of thread t into buf. */
void tly_node_key(const struct tly_rt_thread *t, int32_t n, char *buf, size_t len);
/*
 * Build the job's region list in `all` (comm: pointer to an MPI_Comm, or
 * NULL for this process alone) and, per thread of `p` in list order,
 * gid[k][node] = region id.  0 or -1.
 */
int tly_unify(void *comm, struct tly_rt_proc *p, struct tly_names *all, int32_t ***gid);

/* Any other table of keys unified the same way (call paths of samples,
 * sampling/): `local`'s keys of every rank merged in rank order into
 * `all` (collective over *comm; comm NULL: local's keys alone).  0 or -1. */
int tly_unify_keys(void *comm, struct tly_names *local, struct tly_names *all);

/* The job's region id of node `node` of thread t of p, from tly_unify's
 * gid (threads in list order); -1 when there is none.  Inline: the
 * preload library and the writer library both need it, and neither calls
 * the other's statics. */
static inline int32_t tly_unify_region_of(const struct tly_rt_proc *p, int32_t **gid,
					  const struct tly_rt_thread *t, int32_t node)
{
	int k = 0;
	const struct tly_rt_thread *x = p->threads;

	for (; x && x != t; x = x->next)
		k++;
	return gid && x && gid[k] && node >= 0 && node < t->nnodes ? gid[k][node] : -1;
}

#endif
