/* count_mpi_c.c - an MPI call counter for the apps tests (C symbols).
 *
 * Written by hand for the tests, independent of the runtime's wrapper
 * generator (wrappers/mpi/gen_mpi.py, mpi_spec.txt): it shares neither code
 * nor the spec with it.  Preloaded *in front of* libtally-preload.so, each
 * function counts the call and the bytes, then calls the next definition of
 * the same symbol (dlsym RTLD_NEXT: Tally's wrapper, or Open MPI), so both
 * see the very same calls in the same run (polling loops included).
 *
 * Bytes, from the MPI standard's view of the calling rank: sent = data the
 * rank hands to MPI, received = data MPI delivers into its buffers (a
 * blocking receive counts what arrived, from the status; a non-blocking one
 * the posted size).  Files: written = sent, read = received.
 *
 * At MPI_Finalize (before the layers below it run) every rank writes
 * $TLY_APPS_COUNT_DIR/c.<world rank>.txt: "name calls sent received" lines.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "count_table.h"

#define FN_LIST(X) \
	X(Send) X(Ssend) X(Rsend) X(Bsend) X(Recv) X(Isend) X(Issend) X(Irecv) \
	X(Sendrecv) X(Sendrecv_replace) X(Wait) X(Waitall) X(Waitany) X(Test) \
	X(Testall) X(Testany) X(Testsome) X(Request_free) X(Iprobe) X(Probe) \
	X(Barrier) X(Bcast) X(Reduce) \
	X(Allreduce) X(Gather) X(Gatherv) X(Scatter) X(Scatterv) X(Allgather) \
	X(Allgatherv) X(Alltoall) X(Alltoallv) X(Reduce_scatter) X(Scan) \
	X(Comm_split) X(Comm_dup) X(Comm_create) X(Comm_free) X(Cart_create) \
	X(File_open) X(File_close) X(File_read_at) X(File_read_at_all) \
	X(File_write_at) X(File_write_at_all) X(File_set_size) X(File_sync)

#define ENUM_ID(n) ID_##n,
enum { FN_LIST(ENUM_ID) NFN };
#define NAME_STR(n) "MPI_" #n,
static const char *const names[NFN] = { FN_LIST(NAME_STR) };

static struct cnt_row rows[NFN];

/* the next definition of a symbol, looked up once (a race only repeats
 * the same lookup) */
#define NEXT(fn, ...) \
	static int (*next)(__VA_ARGS__); \
	if (!next) next = (int (*)(__VA_ARGS__))cnt_next_sym("MPI_" #fn)

static void *cnt_next_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		fprintf(stderr, "count_mpi_c: no next %s\n", name);
		abort();
	}
	return p;
}

static long long tsz(MPI_Datatype t, long long count)
{
	int s = 0;

	if (t == MPI_DATATYPE_NULL)
		return 0;
	PMPI_Type_size(t, &s);
	return count * s;
}

static int csize(MPI_Comm c)
{
	int n = 0;

	PMPI_Comm_size(c, &n);
	return n;
}

static int crank(MPI_Comm c)
{
	int r = 0;

	PMPI_Comm_rank(c, &r);
	return r;
}

static long long sum(const int *v, MPI_Comm c)
{
	long long s = 0;

	for (int i = 0, n = csize(c); i < n; i++)
		s += v[i];
	return s;
}

/* what a completed receive delivered (posted size when the status is ignored) */
static long long got(const MPI_Status *st, int count, MPI_Datatype t)
{
	int n;

	if (st == MPI_STATUS_IGNORE || PMPI_Get_count(st, t, &n) != MPI_SUCCESS ||
	    n == MPI_UNDEFINED)
		return tsz(t, count);
	return tsz(t, n);
}

static int done;	/* the table is written: MPI calls after that are the layers' own */

static void add(int id, long long s, long long r)
{
	if (!__atomic_load_n(&done, __ATOMIC_RELAXED))
		cnt_add(&rows[id], s, r);
}

int MPI_Send(const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c)
{
	NEXT(Send, const void *, int, MPI_Datatype, int, int, MPI_Comm);
	add(ID_Send, tsz(t, n), 0);
	return next(b, n, t, d, g, c);
}

int MPI_Ssend(const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c)
{
	NEXT(Ssend, const void *, int, MPI_Datatype, int, int, MPI_Comm);
	add(ID_Ssend, tsz(t, n), 0);
	return next(b, n, t, d, g, c);
}

int MPI_Rsend(const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c)
{
	NEXT(Rsend, const void *, int, MPI_Datatype, int, int, MPI_Comm);
	add(ID_Rsend, tsz(t, n), 0);
	return next(b, n, t, d, g, c);
}

int MPI_Bsend(const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c)
{
	NEXT(Bsend, const void *, int, MPI_Datatype, int, int, MPI_Comm);
	add(ID_Bsend, tsz(t, n), 0);
	return next(b, n, t, d, g, c);
}

int MPI_Isend(const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *q)
{
	NEXT(Isend, const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
	add(ID_Isend, tsz(t, n), 0);
	return next(b, n, t, d, g, c, q);
}

int MPI_Issend(const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *q)
{
	NEXT(Issend, const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
	add(ID_Issend, tsz(t, n), 0);
	return next(b, n, t, d, g, c, q);
}

int MPI_Irecv(void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Request *q)
{
	NEXT(Irecv, void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);
	add(ID_Irecv, 0, tsz(t, n));
	return next(b, n, t, s, g, c, q);
}

int MPI_Recv(void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Status *st)
{
	NEXT(Recv, void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Status *);
	int rc = next(b, n, t, s, g, c, st);

	add(ID_Recv, 0, got(st, n, t));
	return rc;
}

int MPI_Sendrecv(const void *sb, int sn, MPI_Datatype st, int d, int sg, void *rb, int rn,
		 MPI_Datatype rt, int s, int rg, MPI_Comm c, MPI_Status *status)
{
	NEXT(Sendrecv, const void *, int, MPI_Datatype, int, int, void *, int, MPI_Datatype,
	     int, int, MPI_Comm, MPI_Status *);
	int rc = next(sb, sn, st, d, sg, rb, rn, rt, s, rg, c, status);

	add(ID_Sendrecv, tsz(st, sn), got(status, rn, rt));
	return rc;
}

int MPI_Sendrecv_replace(void *b, int n, MPI_Datatype t, int d, int sg, int s, int rg,
			 MPI_Comm c, MPI_Status *status)
{
	NEXT(Sendrecv_replace, void *, int, MPI_Datatype, int, int, int, int, MPI_Comm,
	     MPI_Status *);
	int rc = next(b, n, t, d, sg, s, rg, c, status);

	add(ID_Sendrecv_replace, tsz(t, n), got(status, n, t));
	return rc;
}

int MPI_Wait(MPI_Request *q, MPI_Status *s)
{
	NEXT(Wait, MPI_Request *, MPI_Status *);
	add(ID_Wait, 0, 0);
	return next(q, s);
}

int MPI_Waitall(int n, MPI_Request q[], MPI_Status s[])
{
	NEXT(Waitall, int, MPI_Request *, MPI_Status *);
	add(ID_Waitall, 0, 0);
	return next(n, q, s);
}

int MPI_Waitany(int n, MPI_Request q[], int *i, MPI_Status *s)
{
	NEXT(Waitany, int, MPI_Request *, int *, MPI_Status *);
	add(ID_Waitany, 0, 0);
	return next(n, q, i, s);
}

int MPI_Test(MPI_Request *q, int *f, MPI_Status *s)
{
	NEXT(Test, MPI_Request *, int *, MPI_Status *);
	add(ID_Test, 0, 0);
	return next(q, f, s);
}

int MPI_Testall(int n, MPI_Request q[], int *f, MPI_Status s[])
{
	NEXT(Testall, int, MPI_Request *, int *, MPI_Status *);
	add(ID_Testall, 0, 0);
	return next(n, q, f, s);
}

int MPI_Testany(int n, MPI_Request q[], int *i, int *f, MPI_Status *s)
{
	NEXT(Testany, int, MPI_Request *, int *, int *, MPI_Status *);
	add(ID_Testany, 0, 0);
	return next(n, q, i, f, s);
}

int MPI_Testsome(int n, MPI_Request q[], int *o, int i[], MPI_Status s[])
{
	NEXT(Testsome, int, MPI_Request *, int *, int *, MPI_Status *);
	add(ID_Testsome, 0, 0);
	return next(n, q, o, i, s);
}

int MPI_Request_free(MPI_Request *q)
{
	NEXT(Request_free, MPI_Request *);
	add(ID_Request_free, 0, 0);
	return next(q);
}

int MPI_Iprobe(int s, int g, MPI_Comm c, int *f, MPI_Status *st)
{
	NEXT(Iprobe, int, int, MPI_Comm, int *, MPI_Status *);
	add(ID_Iprobe, 0, 0);
	return next(s, g, c, f, st);
}

int MPI_Probe(int s, int g, MPI_Comm c, MPI_Status *st)
{
	NEXT(Probe, int, int, MPI_Comm, MPI_Status *);
	add(ID_Probe, 0, 0);
	return next(s, g, c, st);
}

int MPI_Barrier(MPI_Comm c)
{
	NEXT(Barrier, MPI_Comm);
	add(ID_Barrier, 0, 0);
	return next(c);
}

int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
	int me = crank(c) == root;
	NEXT(Bcast, void *, int, MPI_Datatype, int, MPI_Comm);
	add(ID_Bcast, me ? tsz(t, n) : 0, me ? 0 : tsz(t, n));
	return next(b, n, t, root, c);
}

int MPI_Reduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c)
{
	NEXT(Reduce, const void *, void *, int, MPI_Datatype, MPI_Op, int, MPI_Comm);
	add(ID_Reduce, tsz(t, n), crank(c) == root ? tsz(t, n) : 0);
	return next(sb, rb, n, t, op, root, c);
}

int MPI_Allreduce(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
	NEXT(Allreduce, const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
	add(ID_Allreduce, tsz(t, n), tsz(t, n));
	return next(sb, rb, n, t, op, c);
}

int MPI_Scan(const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
	NEXT(Scan, const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
	add(ID_Scan, tsz(t, n), tsz(t, n));
	return next(sb, rb, n, t, op, c);
}

int MPI_Reduce_scatter(const void *sb, void *rb, const int rc[], MPI_Datatype t, MPI_Op op,
		       MPI_Comm c)
{
	NEXT(Reduce_scatter, const void *, void *, const int *, MPI_Datatype, MPI_Op, MPI_Comm);
	add(ID_Reduce_scatter, tsz(t, sum(rc, c)), tsz(t, rc[crank(c)]));
	return next(sb, rb, rc, t, op, c);
}

/* MPI_IN_PLACE as the send buffer: the rank hands nothing over */
#define INPLACE(b) ((b) == MPI_IN_PLACE)

int MPI_Gather(const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt,
	       int root, MPI_Comm c)
{
	NEXT(Gather, const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
	add(ID_Gather, INPLACE(sb) ? 0 : tsz(st, sn),
	    crank(c) == root ? tsz(rt, (long long)rn * csize(c)) : 0);
	return next(sb, sn, st, rb, rn, rt, root, c);
}

int MPI_Gatherv(const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[],
		const int dp[], MPI_Datatype rt, int root, MPI_Comm c)
{
	NEXT(Gatherv, const void *, int, MPI_Datatype, void *, const int *, const int *,
	     MPI_Datatype, int, MPI_Comm);
	add(ID_Gatherv, INPLACE(sb) ? 0 : tsz(st, sn), crank(c) == root ? tsz(rt, sum(rn, c)) : 0);
	return next(sb, sn, st, rb, rn, dp, rt, root, c);
}

int MPI_Scatter(const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt,
		int root, MPI_Comm c)
{
	NEXT(Scatter, const void *, int, MPI_Datatype, void *, int, MPI_Datatype, int, MPI_Comm);
	add(ID_Scatter, crank(c) == root ? tsz(st, (long long)sn * csize(c)) : 0,
	    INPLACE(rb) ? 0 : tsz(rt, rn));
	return next(sb, sn, st, rb, rn, rt, root, c);
}

int MPI_Scatterv(const void *sb, const int sn[], const int dp[], MPI_Datatype st, void *rb,
		 int rn, MPI_Datatype rt, int root, MPI_Comm c)
{
	NEXT(Scatterv, const void *, const int *, const int *, MPI_Datatype, void *, int,
	     MPI_Datatype, int, MPI_Comm);
	add(ID_Scatterv, crank(c) == root ? tsz(st, sum(sn, c)) : 0, INPLACE(rb) ? 0 : tsz(rt, rn));
	return next(sb, sn, dp, st, rb, rn, rt, root, c);
}

int MPI_Allgather(const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt,
		  MPI_Comm c)
{
	NEXT(Allgather, const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
	add(ID_Allgather, INPLACE(sb) ? 0 : tsz(st, sn), tsz(rt, (long long)rn * csize(c)));
	return next(sb, sn, st, rb, rn, rt, c);
}

int MPI_Allgatherv(const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[],
		   const int dp[], MPI_Datatype rt, MPI_Comm c)
{
	NEXT(Allgatherv, const void *, int, MPI_Datatype, void *, const int *, const int *,
	     MPI_Datatype, MPI_Comm);
	add(ID_Allgatherv, INPLACE(sb) ? 0 : tsz(st, sn), tsz(rt, sum(rn, c)));
	return next(sb, sn, st, rb, rn, dp, rt, c);
}

int MPI_Alltoall(const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt,
		 MPI_Comm c)
{
	NEXT(Alltoall, const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
	add(ID_Alltoall, INPLACE(sb) ? 0 : tsz(st, (long long)sn * csize(c)),
	    tsz(rt, (long long)rn * csize(c)));
	return next(sb, sn, st, rb, rn, rt, c);
}

int MPI_Alltoallv(const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb,
		  const int rn[], const int rd[], MPI_Datatype rt, MPI_Comm c)
{
	NEXT(Alltoallv, const void *, const int *, const int *, MPI_Datatype, void *,
	     const int *, const int *, MPI_Datatype, MPI_Comm);
	add(ID_Alltoallv, INPLACE(sb) ? 0 : tsz(st, sum(sn, c)), tsz(rt, sum(rn, c)));
	return next(sb, sn, sd, st, rb, rn, rd, rt, c);
}

/* communicators: calls only */
int MPI_Comm_split(MPI_Comm c, int colour, int key, MPI_Comm *nc)
{
	NEXT(Comm_split, MPI_Comm, int, int, MPI_Comm *);
	add(ID_Comm_split, 0, 0);
	return next(c, colour, key, nc);
}

int MPI_Comm_dup(MPI_Comm c, MPI_Comm *nc)
{
	NEXT(Comm_dup, MPI_Comm, MPI_Comm *);
	add(ID_Comm_dup, 0, 0);
	return next(c, nc);
}

int MPI_Comm_create(MPI_Comm c, MPI_Group g, MPI_Comm *nc)
{
	NEXT(Comm_create, MPI_Comm, MPI_Group, MPI_Comm *);
	add(ID_Comm_create, 0, 0);
	return next(c, g, nc);
}

int MPI_Comm_free(MPI_Comm *c)
{
	NEXT(Comm_free, MPI_Comm *);
	add(ID_Comm_free, 0, 0);
	return next(c);
}

int MPI_Cart_create(MPI_Comm c, int nd, const int dims[], const int per[], int reorder,
		    MPI_Comm *nc)
{
	NEXT(Cart_create, MPI_Comm, int, const int *, const int *, int, MPI_Comm *);
	add(ID_Cart_create, 0, 0);
	return next(c, nd, dims, per, reorder, nc);
}

/* MPI-IO: written = sent, read = received */
int MPI_File_open(MPI_Comm c, const char *name, int mode, MPI_Info info, MPI_File *fh)
{
	NEXT(File_open, MPI_Comm, const char *, int, MPI_Info, MPI_File *);
	add(ID_File_open, 0, 0);
	return next(c, name, mode, info, fh);
}

int MPI_File_close(MPI_File *fh)
{
	NEXT(File_close, MPI_File *);
	add(ID_File_close, 0, 0);
	return next(fh);
}

int MPI_File_read_at(MPI_File fh, MPI_Offset o, void *b, int n, MPI_Datatype t, MPI_Status *s)
{
	NEXT(File_read_at, MPI_File, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *);
	add(ID_File_read_at, 0, tsz(t, n));
	return next(fh, o, b, n, t, s);
}

int MPI_File_read_at_all(MPI_File fh, MPI_Offset o, void *b, int n, MPI_Datatype t, MPI_Status *s)
{
	NEXT(File_read_at_all, MPI_File, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *);
	add(ID_File_read_at_all, 0, tsz(t, n));
	return next(fh, o, b, n, t, s);
}

int MPI_File_write_at(MPI_File fh, MPI_Offset o, const void *b, int n, MPI_Datatype t, MPI_Status *s)
{
	NEXT(File_write_at, MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *);
	add(ID_File_write_at, tsz(t, n), 0);
	return next(fh, o, b, n, t, s);
}

int MPI_File_write_at_all(MPI_File fh, MPI_Offset o, const void *b, int n, MPI_Datatype t, MPI_Status *s)
{
	NEXT(File_write_at_all, MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *);
	add(ID_File_write_at_all, tsz(t, n), 0);
	return next(fh, o, b, n, t, s);
}

int MPI_File_set_size(MPI_File fh, MPI_Offset sz)
{
	NEXT(File_set_size, MPI_File, MPI_Offset);
	add(ID_File_set_size, 0, 0);
	return next(fh, sz);
}

int MPI_File_sync(MPI_File fh)
{
	NEXT(File_sync, MPI_File);
	add(ID_File_sync, 0, 0);
	return next(fh);
}

/* Writes the table once; count_mpi_f.c calls it from mpi_finalize_ (a
 * Fortran program's MPI_Finalize never passes through the C symbol). */
void tly_apps_count_c_write(void)
{
	int rank = 0;

	if (__atomic_exchange_n(&done, 1, __ATOMIC_RELAXED))
		return;
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	cnt_write("c", rank, names, rows, NFN);
}

int MPI_Finalize(void)
{
	NEXT(Finalize, void);
	tly_apps_count_c_write();
	return next();
}
