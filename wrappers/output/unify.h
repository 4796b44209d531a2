/*
 * unify.h - region paths unified across threads and ranks.  A path key is
 * "<kind>\x1e<name>" per node from the root, joined by '\x1f'.
 */
#ifndef TALLY_UNIFY_H
#define TALLY_UNIFY_H

#include <stddef.h>
#include <stdint.h>

#include "output/names.h"
#include "runtime/rt.h"

/* Key of node n of thread t into buf. */
void tly_node_key(const struct tly_rt_thread *t, int32_t n, char *buf, size_t len);
/*
 * Build the job's region list in `all` (comm: pointer to an MPI_Comm, or
 * NULL for this process alone) and, per thread of `p` in list order,
 * gid[k][node] = region id.  0 or -1.
 */
int tly_unify(void *comm, struct tly_rt_proc *p, struct tly_names *all, int32_t ***gid);

#endif
