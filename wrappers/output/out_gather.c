/*
 * out_gather.c - a small job's rows to rank 0, which writes the job file
 * alone through HDF5's POSIX driver, as a job of one rank does
 * (output/out_gather.h; docs/scale.md).  In the preload library, before
 * the writer library is loaded: only rank 0 loads HDF5 (output/out_job.c).
 *
 * Parallel HDF5's collective write costs a fixed 0.4-2 s at 2 ranks on a
 * busy 2-core machine (MPI-IO's components loaded at the first open,
 * collective metadata, two-phase aggregation), where one process writes
 * the same rows through the POSIX driver in 6-35 ms and the gather of a
 * few hundred kB takes a fraction of a millisecond.  The parallel path
 * stays for large jobs, where one writer and its memory would not do.
 *
 * Four small collectives: an MPI_Allreduce of every rank's rows per
 * table, bytes and objections, from which every rank decides alike; a
 * broadcast of whether rank 0 has room for the rows; an MPI_Gather of
 * each rank's header (its rows per table, clocks); one MPI_Gatherv of
 * the rows, packed table after table.  Tally's own MPI calls go through
 * PMPI_ names.
 */
#include "output/out_gather.h"
#include "output/out_host.h"

#include "output/out_module.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct hdr {
	int64_t n[TLY_NTABLES];
	int64_t bytes, start_wall, end_wall, before_ns;
};

/* What every rank adds up before the choice: the rows per table, their
 * bytes, and the ranks that say no (a producer's data, no memory, a
 * smaller TALLY_OUTPUT_GATHER). */
enum { V_BYTES = TLY_NTABLES, V_NO, V_N };

static int64_t rows_bytes(const int64_t *n)
{
	int64_t b = 0;

	for (int i = 0; i < TLY_NTABLES; i++)
		b += n[i] * (int64_t)tly_row_sizes[i];
	return b;
}

/* This rank's rows, table after table, in one buffer (NULL: no memory). */
static char *pack(const struct tly_rows *r, int64_t bytes)
{
	char *buf = malloc((size_t)(bytes ? bytes : 1)), *at = buf;

	for (int i = 0; buf && i < TLY_NTABLES; i++) {
		size_t sz = (size_t)r->n[i] * tly_row_sizes[i];

		if (sz)
			memcpy(at, r->t[i], sz);
		at += sz;
	}
	return buf;
}

/* Rank 0's room for the job's rows, from their sums (0 or -1). */
static int alloc_all(struct tly_rows *all, const int64_t *v)
{
	for (int i = 0; i < TLY_NTABLES; i++) {
		all->t[i] = malloc((size_t)(v[i] ? v[i] : 1) * tly_row_sizes[i]);
		all->n[i] = v[i];
		if (!all->t[i])
			return -1;
	}
	return 0;
}

static void drop(struct tly_rows *all)
{
	for (int i = 0; i < TLY_NTABLES; i++)
		free(all->t[i]);
	memset(all, 0, sizeof *all);
}

/* Rank 0: each rank's packed tables to their place in `all`, and the
 * job's figures. */
static void unpack(struct tly_rows *all, const char *buf, const struct hdr *h, int size,
		   struct tly_gather_job *job)
{
	int64_t at[TLY_NTABLES] = { 0 };
	const char *src = buf;

	job->start_wall = h[0].start_wall;
	job->end_wall = h[0].end_wall;
	job->before_ns = h[0].before_ns;
	for (int r = 0; r < size; r++) {
		for (int i = 0; i < TLY_NTABLES; i++) {
			size_t row = tly_row_sizes[i], sz = (size_t)h[r].n[i] * row;

			if (sz)
				memcpy((char *)all->t[i] + (size_t)at[i] * row, src, sz);
			src += sz;
			at[i] += h[r].n[i];
		}
		job->start_wall = h[r].start_wall < job->start_wall ? h[r].start_wall : job->start_wall;
		job->end_wall = h[r].end_wall > job->end_wall ? h[r].end_wall : job->end_wall;
		job->before_ns = h[r].before_ns > job->before_ns ? h[r].before_ns : job->before_ns;
	}
}

/* Rank 0's buffers: headers, counts, displacements, the packed rows, and
 * the tables; 0, or -1 with nothing left allocated. */
struct room {
	struct hdr *h;
	int *counts, *displs;
	char *buf;
};

static int room_make(struct room *m, int size, const int64_t *v, struct tly_rows *all)
{
	m->h = calloc((size_t)size, sizeof *m->h);
	m->counts = calloc((size_t)size, sizeof *m->counts);
	m->displs = calloc((size_t)size, sizeof *m->displs);
	m->buf = malloc((size_t)(v[V_BYTES] ? v[V_BYTES] : 1));
	if (m->h && m->counts && m->displs && m->buf && alloc_all(all, v) == 0)
		return 0;
	drop(all);
	return -1;
}

static void room_free(struct room *m)
{
	free(m->h);
	free(m->counts);
	free(m->displs);
	free(m->buf);
}

/* The headers, then the rows, to rank 0 (which has its room). */
static void gather_rows(MPI_Comm comm, int rank, int size, struct hdr *me, const char *send, struct room *m)
{
	PMPI_Gather(me, (int)sizeof *me, MPI_BYTE, m->h, (int)sizeof *me, MPI_BYTE, 0, comm);
	for (int r = 0, at = 0; rank == 0 && r < size; r++) {
		m->counts[r] = (int)m->h[r].bytes;
		m->displs[r] = at;
		at += m->counts[r];
	}
	PMPI_Gatherv(send, (int)me->bytes, MPI_BYTE, m->buf, m->counts, m->displs, MPI_BYTE, 0, comm);
}

int tly_out_gather(MPI_Comm comm, struct tly_rt_proc *p, int parts, const struct tly_rows *mine, int64_t t0,
		   struct tly_rows *all, struct tly_gather_job *job)
{
	struct hdr me = { 0 };
	struct room m = { 0 };
	int64_t v[V_N];
	char *send;
	int rank, size, ok = 1;

	memset(all, 0, sizeof *all);
	memset(job, 0, sizeof *job);
	PMPI_Comm_rank(comm, &rank);
	PMPI_Comm_size(comm, &size);
	memcpy(me.n, mine->n, sizeof me.n);
	me.bytes = rows_bytes(mine->n);
	me.start_wall = p->start_wall;
	me.end_wall = p->end_wall;
	send = pack(mine, me.bytes);
	memcpy(v, me.n, sizeof me.n);
	v[V_BYTES] = me.bytes;
	v[V_NO] = parts > 0 || !send || size > atoi(p->opt.raw.output_gather);
	PMPI_Allreduce(MPI_IN_PLACE, v, V_N, MPI_INT64_T, MPI_SUM, comm);
	if (v[V_NO] || v[V_BYTES] > TLY_GATHER_MAX_BYTES) {
		free(send);
		return 0;
	}
	if (rank == 0)
		ok = room_make(&m, size, v, all) == 0;
	PMPI_Bcast(&ok, 1, MPI_INT, 0, comm);
	if (ok) {
		job->at = tly_out_now();
		me.before_ns = job->at - t0;
		gather_rows(comm, rank, size, &me, send, &m);
		if (rank == 0)
			unpack(all, m.buf, m.h, size, job);
	}
	room_free(&m);
	free(send);
	return ok;
}

void tly_out_gather_wait(MPI_Request *req)
{
	struct timespec ts = { 0, 200000 };
	int done = 0;

	while (PMPI_Test(req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
		nanosleep(&ts, NULL);
}

int tly_out_parts_pending(void)
{
	int n = 0;

	for (int k = 0; tly_out_modules[k]; k++)
		if (tly_out_modules[k]->parts_pending)
			n += tly_out_modules[k]->parts_pending();
	return n;
}
