/*
 * unify.c - one region table for the whole job.  Each rank lists its
 * distinct paths; the lists are merged up a binomial tree in rank order
 * (first occurrence wins, so a parent always precedes its children;
 * output/unify_tree.c, pure, holds the algorithm) and rank 0 broadcasts
 * the result.  This file is only the MPI transport.
 */
#include "output/unify.h"
#include "output/unify_tree.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tly_node_key(const struct tly_rt_thread *t, int32_t n, char *buf, size_t len)
{
	int32_t chain[512];
	int k = 0;
	size_t at = 0;

	for (int32_t c = n; c >= 0 && k < 512; c = t->nodes[c].parent)
		chain[k++] = c;
	buf[0] = '\0';
	for (int i = k - 1; i >= 0 && at + 1 < len; i--) {
		const struct tly_rt_node *nd = &t->nodes[chain[i]];
		int w = snprintf(buf + at, len - at, "%s%d\x1e%s", i == k - 1 ? "" : "\x1f", nd->kind, nd->name);

		if (w < 0)
			break;
		at += (size_t)w;
	}
}

/* Round by round, a receiver merges its partner's packed table after its
 * own; a sender is done.  Rank 0 ends with the job's table, which every
 * rank then gets by broadcast.  Memory on any rank: the unique keys of
 * its subtree plus one received table; time: rounds x unique keys. */
static int tree_merge(MPI_Comm comm, struct tly_names *mine)
{
	int rank, size, peer, bad = 0;

	PMPI_Comm_rank(comm, &rank);
	PMPI_Comm_size(comm, &size);
	for (int r = 0; r < tly_tree_rounds(size); r++) {
		enum tly_tree_role role = tly_tree_role(rank, size, r, &peer);
		int64_t n = (int64_t)mine->len;

		if (role == TLY_TREE_SEND) {
			PMPI_Send(&n, 1, MPI_INT64_T, peer, 0, comm);
			PMPI_Send(mine->buf, (int)n, MPI_CHAR, peer, 1, comm);
		} else if (role == TLY_TREE_RECV) {
			char *buf;

			PMPI_Recv(&n, 1, MPI_INT64_T, peer, 0, comm, MPI_STATUS_IGNORE);
			buf = malloc((size_t)n + 1);
			PMPI_Recv(buf ? buf : (char *)&n, buf ? (int)n : 0, MPI_CHAR, peer, 1, comm,
				  MPI_STATUS_IGNORE);
			bad |= !buf || tly_names_merge_packed(mine, buf, (size_t)n);
			free(buf);
		}
	}
	return bad ? -1 : 0;
}

static int merge(MPI_Comm comm, struct tly_names *local, struct tly_names *all)
{
	int rank, bad = tree_merge(comm, local);
	int64_t n = (int64_t)local->len;
	char *buf;

	PMPI_Comm_rank(comm, &rank);
	PMPI_Bcast(&n, 1, MPI_INT64_T, 0, comm);
	buf = rank == 0 ? local->buf : malloc((size_t)n + 1);
	if (!buf)
		buf = (char *)&n, n = 0, bad = 1;
	PMPI_Bcast(buf, (int)n, MPI_CHAR, 0, comm);
	bad |= tly_names_merge_packed(all, buf, (size_t)n);
	if (rank != 0)
		free(buf);
	return bad ? -1 : 0;
}

int tly_unify_keys(void *comm, struct tly_names *local, struct tly_names *all)
{
	if (comm)
		return merge(*(MPI_Comm *)comm, local, all);
	return tly_names_merge_packed(all, local->buf ? local->buf : "", local->len);
}

int tly_unify(void *comm, struct tly_rt_proc *p, struct tly_names *all, int32_t ***gid)
{
	struct tly_names local = { 0 };
	char key[8192];
	int k = 0;

	for (struct tly_rt_thread *t = p->threads; t; t = t->next)
		for (int32_t i = 0; i < t->nnodes; i++) {
			tly_node_key(t, i, key, sizeof key);
			tly_names_add(comm ? &local : all, key);
		}
	if (comm)
		merge(*(MPI_Comm *)comm, &local, all);
	tly_names_free(&local);
	*gid = calloc((size_t)p->nthreads + 1, sizeof **gid);
	if (!*gid)
		return -1;
	for (struct tly_rt_thread *t = p->threads; t; t = t->next, k++) {
		(*gid)[k] = calloc((size_t)t->nnodes + 1, sizeof ***gid);
		for (int32_t i = 0; (*gid)[k] && i < t->nnodes; i++) {
			tly_node_key(t, i, key, sizeof key);
			(*gid)[k][i] = tly_names_find(all, key);
		}
	}
	return 0;
}
