/* count_mpi_f.c - an MPI call counter for the apps tests (Fortran symbols).
 *
 * The gfortran names of the mpif.h / `use mpi` bindings (mpi_send_ ...), as
 * CP2K calls them.  Like count_mpi_c.c it is written by hand for the tests,
 * shares nothing with the runtime's generator, sits in front of
 * libtally-preload.so and calls the next definition of each symbol.
 * Open MPI's Fortran bindings call PMPI_*, so a Fortran call is never also
 * seen by the C counter.  Every argument is passed by reference.
 *
 * Bytes as in count_mpi_c.c, except that a Fortran receive counts the
 * posted size (the status argument is a Fortran array here).
 * Output: $TLY_APPS_COUNT_DIR/f.<world rank>.txt, with the C names.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "count_table.h"

typedef MPI_Fint I;	/* a Fortran INTEGER argument */

#define FN_LIST(X) \
	X(send) X(recv) X(isend) X(irecv) X(sendrecv) X(sendrecv_replace) \
	X(wait) X(waitall) X(waitany) X(test) X(testany) X(testsome) \
	X(request_free) X(iprobe) X(probe) \
	X(barrier) X(ibarrier) X(bcast) X(ibcast) X(reduce) X(allreduce) \
	X(iallreduce) X(scan) X(reduce_scatter) X(gather) X(gatherv) \
	X(allgather) X(allgatherv) X(iallgather) X(iallgatherv) X(alltoall) \
	X(alltoallv) X(iscatter) X(iscatterv) X(comm_split) X(comm_dup) \
	X(comm_create) X(comm_free) X(cart_create)

#define ENUM_ID(n) ID_##n,
enum { FN_LIST(ENUM_ID) NFN };
static const char *const names[NFN] = {
	"MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Sendrecv",
	"MPI_Sendrecv_replace", "MPI_Wait", "MPI_Waitall", "MPI_Waitany",
	"MPI_Test", "MPI_Testany", "MPI_Testsome", "MPI_Request_free",
	"MPI_Iprobe", "MPI_Probe", "MPI_Barrier",
	"MPI_Ibarrier", "MPI_Bcast", "MPI_Ibcast", "MPI_Reduce", "MPI_Allreduce",
	"MPI_Iallreduce", "MPI_Scan", "MPI_Reduce_scatter", "MPI_Gather",
	"MPI_Gatherv", "MPI_Allgather", "MPI_Allgatherv", "MPI_Iallgather",
	"MPI_Iallgatherv", "MPI_Alltoall", "MPI_Alltoallv", "MPI_Iscatter",
	"MPI_Iscatterv", "MPI_Comm_split", "MPI_Comm_dup", "MPI_Comm_create",
	"MPI_Comm_free", "MPI_Cart_create",
};

_Static_assert(sizeof names / sizeof *names == NFN, "one name per counted function");

static struct cnt_row rows[NFN];

static void *next_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		fprintf(stderr, "count_mpi_f: no next %s\n", name);
		abort();
	}
	return p;
}

/* Every Fortran binding returns void; the arguments are forwarded as they
 * came (pointers), so one pointer type with enough slots serves them all. */
typedef void (*fwd_t)(void *, void *, void *, void *, void *, void *, void *, void *,
		      void *, void *, void *, void *, void *, void *);
#define NEXT(fn) \
	static fwd_t next; \
	if (!next) next = (fwd_t)next_sym("mpi_" #fn "_")

static long long tsz(const I *t, long long count)
{
	int s = 0;
	MPI_Datatype d = MPI_Type_f2c(*t);

	if (d == MPI_DATATYPE_NULL)
		return 0;
	PMPI_Type_size(d, &s);
	return count * s;
}

static int csize(const I *c)
{
	int n = 0;

	PMPI_Comm_size(MPI_Comm_f2c(*c), &n);
	return n;
}

static int crank(const I *c)
{
	int r = 0;

	PMPI_Comm_rank(MPI_Comm_f2c(*c), &r);
	return r;
}

static long long sum(const I *v, const I *c)
{
	long long s = 0;

	for (int i = 0, n = csize(c); i < n; i++)
		s += v[i];
	return s;
}

/* MPI_IN_PLACE in Fortran is the address of a common block of Open MPI's */
static int inplace(const void *b)
{
	static const char *const sym[] = { "mpi_fortran_in_place_", "mpi_fortran_in_place",
					   "mpi_fortran_in_place__", "MPI_FORTRAN_IN_PLACE" };

	for (size_t i = 0; i < sizeof sym / sizeof *sym; i++) {
		void *p = dlsym(RTLD_DEFAULT, sym[i]);

		if (p && p == b)
			return 1;
	}
	return 0;
}

static int done;	/* the table is written */

static void add(int id, long long s, long long r)
{
	if (!__atomic_load_n(&done, __ATOMIC_RELAXED))
		cnt_add(&rows[id], s, r);
}

#define A14 a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14
#define P14 void *a1, void *a2, void *a3, void *a4, void *a5, void *a6, void *a7, \
	void *a8, void *a9, void *a10, void *a11, void *a12, void *a13, void *a14
/* one binding: the bytes are computed from the arguments before the call */
#define BIND(fn, SENT, RECV) \
	void mpi_##fn##_(P14) \
	{ NEXT(fn); add(ID_##fn, (SENT), (RECV)); next(A14); }

/* A Fortran binding is called with its own number of arguments; reading
 * the unused slots of P14 is what the x86-64 and aarch64 calling
 * conventions allow (they are registers or caller stack never read back),
 * and forwarding them passes them on unread. */
#define T(x) ((const I *)(x))
BIND(send, tsz(T(a3), *T(a2)), 0)
BIND(isend, tsz(T(a3), *T(a2)), 0)
BIND(recv, 0, tsz(T(a3), *T(a2)))
BIND(irecv, 0, tsz(T(a3), *T(a2)))
BIND(sendrecv, tsz(T(a3), *T(a2)), tsz(T(a8), *T(a7)))
BIND(sendrecv_replace, tsz(T(a3), *T(a2)), tsz(T(a3), *T(a2)))
BIND(wait, 0, 0)
BIND(waitall, 0, 0)
BIND(waitany, 0, 0)
BIND(test, 0, 0)
BIND(testany, 0, 0)
BIND(testsome, 0, 0)
BIND(request_free, 0, 0)
BIND(iprobe, 0, 0)
BIND(probe, 0, 0)
BIND(barrier, 0, 0)
BIND(ibarrier, 0, 0)
BIND(bcast, crank(T(a5)) == *T(a4) ? tsz(T(a3), *T(a2)) : 0,
     crank(T(a5)) != *T(a4) ? tsz(T(a3), *T(a2)) : 0)
BIND(ibcast, crank(T(a5)) == *T(a4) ? tsz(T(a3), *T(a2)) : 0,
     crank(T(a5)) != *T(a4) ? tsz(T(a3), *T(a2)) : 0)
BIND(reduce, tsz(T(a4), *T(a3)), crank(T(a7)) == *T(a6) ? tsz(T(a4), *T(a3)) : 0)
BIND(allreduce, tsz(T(a4), *T(a3)), tsz(T(a4), *T(a3)))
BIND(iallreduce, tsz(T(a4), *T(a3)), tsz(T(a4), *T(a3)))
BIND(scan, tsz(T(a4), *T(a3)), tsz(T(a4), *T(a3)))
BIND(reduce_scatter, tsz(T(a4), sum(T(a3), T(a6))), tsz(T(a4), T(a3)[crank(T(a6))]))
BIND(gather, inplace(a1) ? 0 : tsz(T(a3), *T(a2)),
     crank(T(a8)) == *T(a7) ? tsz(T(a6), (long long)*T(a5) * csize(T(a8))) : 0)
BIND(gatherv, inplace(a1) ? 0 : tsz(T(a3), *T(a2)),
     crank(T(a9)) == *T(a8) ? tsz(T(a7), sum(T(a5), T(a9))) : 0)
BIND(allgather, inplace(a1) ? 0 : tsz(T(a3), *T(a2)),
     tsz(T(a6), (long long)*T(a5) * csize(T(a7))))
BIND(iallgather, inplace(a1) ? 0 : tsz(T(a3), *T(a2)),
     tsz(T(a6), (long long)*T(a5) * csize(T(a7))))
BIND(allgatherv, inplace(a1) ? 0 : tsz(T(a3), *T(a2)), tsz(T(a7), sum(T(a5), T(a8))))
BIND(iallgatherv, inplace(a1) ? 0 : tsz(T(a3), *T(a2)), tsz(T(a7), sum(T(a5), T(a8))))
BIND(alltoall, inplace(a1) ? 0 : tsz(T(a3), (long long)*T(a2) * csize(T(a7))),
     tsz(T(a6), (long long)*T(a5) * csize(T(a7))))
BIND(alltoallv, inplace(a1) ? 0 : tsz(T(a4), sum(T(a2), T(a9))), tsz(T(a8), sum(T(a6), T(a9))))
BIND(iscatter, crank(T(a8)) == *T(a7) ? tsz(T(a3), (long long)*T(a2) * csize(T(a8))) : 0,
     inplace(a4) ? 0 : tsz(T(a6), *T(a5)))
BIND(iscatterv, crank(T(a9)) == *T(a8) ? tsz(T(a4), sum(T(a2), T(a9))) : 0,
     inplace(a5) ? 0 : tsz(T(a7), *T(a6)))
BIND(comm_split, 0, 0)
BIND(comm_dup, 0, 0)
BIND(comm_create, 0, 0)
BIND(comm_free, 0, 0)
BIND(cart_create, 0, 0)

void mpi_finalize_(I *ierr)
{
	int rank = 0;
	static void (*next)(I *);
	void (*c_write)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "tly_apps_count_c_write");

	if (!next)
		next = (void (*)(I *))next_sym("mpi_finalize_");
	if (c_write)
		c_write();
	if (!__atomic_exchange_n(&done, 1, __ATOMIC_RELAXED)) {
		PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
		cnt_write("f", rank, names, rows, NFN);
	}
	next(ierr);
}
