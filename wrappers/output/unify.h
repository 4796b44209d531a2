/*
 * unify.h - region paths unified across threads and ranks.  A path key is
 * "<kind>\x1e<name>" per node from the root, joined by '\x1f'.
 */
#ifndef TALLY_UNIFY_H
#define TALLY_UNIFY_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/rt.h"

struct tly_names {
	char *buf;            /* keys, NUL-terminated, back to back */
	size_t len, cap;
	size_t *off;          /* key i at buf + off[i] */
	int n, ncap;
	int *tab;             /* open-addressing hash: index + 1, 0 = empty */
	int tabcap;
};

int tly_names_add(struct tly_names *nm, const char *key);   /* id or -1 */
int tly_names_find(const struct tly_names *nm, const char *key);
void tly_names_free(struct tly_names *nm);
static inline const char *tly_names_key(const struct tly_names *nm, int i) { return nm->buf + nm->off[i]; }
/* Key of node n of thread t into buf. */
void tly_node_key(const struct tly_rt_thread *t, int32_t n, char *buf, size_t len);
/*
 * Build the job's region list in `all` (comm: pointer to an MPI_Comm, or
 * NULL for this process alone) and, per thread of `p` in list order,
 * gid[k][node] = region id.  0 or -1.
 */
int tly_unify(void *comm, struct tly_rt_proc *p, struct tly_names *all, int32_t ***gid);

#endif
