/* stack_count.c - a second PMPI layer for the test mpi_pmpi_stacked.
 *
 * Preloaded in front of libtally-preload.so, it counts every call of the
 * MPI functions below that reaches it and passes the call on to the next
 * definition (dlsym RTLD_NEXT: Tally's wrapper, or Open MPI).  The list holds
 * the functions Tally calls for itself (their PMPI_ names, nm -D of the
 * preload) and the ones the test programs call: a call Tally made through a
 * public MPI_ name would show up here as one the program did not make.
 * Written for this test, sharing nothing with the runtime.
 *
 * At the program's MPI_Finalize, C or Fortran (before the layers below it run), each rank
 * writes $TLY_STACK_DIR/<TLY_STACK_TAG>.<world rank>.txt: "name calls" lines.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define FN_LIST(X) \
	X(int, Init, (int *a, char ***b), (a, b)) \
	X(int, Init_thread, (int *a, char ***b, int r, int *p), (a, b, r, p)) \
	X(int, Initialized, (int *f), (f)) \
	X(int, Finalized, (int *f), (f)) \
	X(int, Query_thread, (int *p), (p)) \
	X(int, Comm_rank, (MPI_Comm c, int *r), (c, r)) \
	X(int, Comm_size, (MPI_Comm c, int *r), (c, r)) \
	X(int, Comm_dup, (MPI_Comm c, MPI_Comm *n), (c, n)) \
	X(int, Comm_free, (MPI_Comm *c), (c)) \
	X(int, Comm_split, (MPI_Comm c, int a, int b, MPI_Comm *n), (c, a, b, n)) \
	X(MPI_Comm, Comm_f2c, (MPI_Fint f), (f)) \
	X(MPI_Datatype, Type_f2c, (MPI_Fint f), (f)) \
	X(int, Type_size, (MPI_Datatype t, int *s), (t, s)) \
	X(int, Get_count, (const MPI_Status *s, MPI_Datatype t, int *n), (s, t, n)) \
	X(int, Info_create, (MPI_Info *i), (i)) \
	X(int, Info_set, (MPI_Info i, const char *k, const char *v), (i, k, v)) \
	X(int, Info_free, (MPI_Info *i), (i)) \
	X(int, Barrier, (MPI_Comm c), (c)) \
	X(int, Bcast, (void *b, int n, MPI_Datatype t, int r, MPI_Comm c), (b, n, t, r, c)) \
	X(int, Allreduce, (const void *s, void *r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm c), \
	  (s, r, n, t, o, c)) \
	X(int, Allgather, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, \
			   MPI_Comm c), (s, sn, st, r, rn, rt, c)) \
	X(int, Gather, (const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, \
			int root, MPI_Comm c), (s, sn, st, r, rn, rt, root, c)) \
	X(int, Send, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c), (b, n, t, d, g, c)) \
	X(int, Recv, (void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Status *s), \
	  (b, n, t, d, g, c, s)) \
	X(int, Isend, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *q), \
	  (b, n, t, d, g, c, q)) \
	X(int, Irecv, (void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *q), \
	  (b, n, t, d, g, c, q)) \
	X(int, Sendrecv, (const void *sb, int sn, MPI_Datatype st, int d, int sg, void *rb, int rn, \
			  MPI_Datatype rt, int s, int rg, MPI_Comm c, MPI_Status *x), \
	  (sb, sn, st, d, sg, rb, rn, rt, s, rg, c, x)) \
	X(int, Wait, (MPI_Request *q, MPI_Status *s), (q, s)) \
	X(int, Waitall, (int n, MPI_Request *q, MPI_Status *s), (n, q, s)) \
	X(int, Get_processor_name, (char *n, int *l), (n, l)) \
	X(int, Abort, (MPI_Comm c, int e), (c, e))

#define ENUM_ID(r, n, p, a) ID_##n,
enum { FN_LIST(ENUM_ID) NFN };
#define NAME_STR(r, n, p, a) "MPI_" #n,
static const char *const names[NFN] = { FN_LIST(NAME_STR) };

static long long calls[NFN];
static int done;	/* written: later calls are the layers' own (Finalize) */

static void *next_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		fprintf(stderr, "stack_count: no next %s\n", name);
		abort();
	}
	return p;
}

static void count(int id)
{
	if (!__atomic_load_n(&done, __ATOMIC_RELAXED))
		__atomic_add_fetch(&calls[id], 1, __ATOMIC_RELAXED);
}

#define WRAP(ret, n, params, args) \
	ret MPI_##n params \
	{ \
		static ret (*nx) params; \
		if (!nx) nx = (ret (*) params)next_sym("MPI_" #n); \
		count(ID_##n); \
		return nx args; \
	}
FN_LIST(WRAP)

static void write_table(void)
{
	const char *dir = getenv("TLY_STACK_DIR"), *tag = getenv("TLY_STACK_TAG");
	char path[4096];
	int rank = 0;
	FILE *f;

	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	__atomic_store_n(&done, 1, __ATOMIC_RELAXED);
	if (!dir || !tag)
		return;
	snprintf(path, sizeof path, "%s/%s.%d.txt", dir, tag, rank);
	f = fopen(path, "wx");
	if (!f) {
		perror(path);
		return;
	}
	for (int i = 0; i < NFN; i++)
		if (calls[i])
			fprintf(f, "%s %lld\n", names[i], calls[i]);
	fclose(f);
}

int MPI_Finalize(void)
{
	static int (*nx)(void);

	if (!nx)
		nx = (int (*)(void))next_sym("MPI_Finalize");
	write_table();
	return nx();
}

/* Fortran's MPI_Finalize reaches PMPI_Finalize inside the MPI library, not
 * MPI_Finalize: the table is written at the Fortran symbols too. */
#define F_FINALIZE(sym) \
	__attribute__((visibility("default"))) void sym(MPI_Fint *ierr) \
	{ \
		static void (*nx)(MPI_Fint *); \
		if (!nx) nx = (void (*)(MPI_Fint *))next_sym(#sym); \
		write_table(); \
		nx(ierr); \
	}
void mpi_finalize(MPI_Fint *ierr);
void mpi_finalize_(MPI_Fint *ierr);
void mpi_finalize__(MPI_Fint *ierr);
void MPI_FINALIZE(MPI_Fint *ierr);
F_FINALIZE(mpi_finalize)
F_FINALIZE(mpi_finalize_)
F_FINALIZE(mpi_finalize__)
F_FINALIZE(MPI_FINALIZE)
