/*
 * mpi_support.h - what the generated MPI wrappers use: call bracketing
 * (tly_mpi_begin/end) and the byte-expression helpers of mpi_spec.txt.
 */
#ifndef TALLY_MPI_SUPPORT_H
#define TALLY_MPI_SUPPORT_H

#include <mpi.h>
#include <stdint.h>

#include "mpi_ids.h"
#include "regions/regions.h"
#include "runtime/rt.h"

/* The generated table of wrapped functions (mpi_ids.c). */
extern const int tly_mpi_nfuncs;
extern const char *const tly_mpi_names[];
extern const unsigned char tly_mpi_carries[];   /* 1: the call carries a message */

#define TALLY_RT_EXPORT __attribute__((visibility("default")))

/* One thread's statistics of one MPI function. */
struct tly_mpi_stat {
	int64_t calls, time_ns, sent, recv;
	int64_t hist[TLY_RT_HIST];
	int32_t rparent;      /* region cache: parent node + 1 (0: empty) */
	int32_t rnode;        /* the call's node under that parent */
};

/* The MPI part's data of one thread: its slot of the record (made by the
 * part's thread_start, mpi_record.c; reached through mpi_thread.h). */
struct tly_mpi_thread {
	int in_mpi;                   /* wrapper nesting guard */
	struct tly_mpi_sites *sites;  /* call sites (mpi_sites.c), NULL: none yet */
	struct tly_mpi_stat stat[];   /* [tly_mpi_nfuncs] */
};

struct tly_mpi_call {
	struct tly_rt_thread *t;
	int id;
	int region;
	int sites;            /* frames of the call site to record (0: off) */
	const void *ra;       /* the wrapper's return address: the call site */
	int64_t t0;
	int msg;              /* a trace follows the call's messages (mpi_msg.c) */
	int coll, root;       /* a collective (root -1: none) on comm, told at the end; 2: non-blocking */
	MPI_Comm comm;
	MPI_Request ireq;     /* coll 2: the non-blocking collective's request */
	void *scratch;        /* saved requests and statuses, freed at the end */
};

/*
 * What a trace (trace/trace_mpi.c) is told of the calls' messages, from
 * the statements of mpi_trace.txt: set once, at start-up; each is called
 * on the calling thread inside the call's region (before its leave).
 * Times are the runtime's clock (send: the call's start, the others: its
 * end); peers and roots are ranks in comm.
 */
struct tly_mpi_msg_hooks {
	void (*send)(struct tly_rt_thread *t, int peer, int tag, MPI_Comm comm, int64_t bytes, MPI_Request req,
		     int64_t ts);   /* req: MPI_REQUEST_NULL for a blocking send */
	void (*recv)(struct tly_rt_thread *t, const MPI_Status *st, MPI_Comm comm, int64_t ts);
	void (*irecv)(struct tly_rt_thread *t, MPI_Comm comm, MPI_Request req, int64_t ts);
	void (*done)(struct tly_rt_thread *t, MPI_Request req, const MPI_Status *st, int64_t ts);
	void (*coll)(struct tly_rt_thread *t, int id, MPI_Comm comm, int root, int64_t sent, int64_t recv,
		     int64_t t0, int64_t t1);
	/* a non-blocking collective started (id: the MPI_I* call's); it
	 * completes in a done() of req */
	void (*icoll)(struct tly_rt_thread *t, int id, MPI_Comm comm, int root, int64_t sent, int64_t recv,
		      MPI_Request req, int64_t ts);
	/* a persistent request made (send: 1, recv: 0; peer in comm, may be
	 * MPI_ANY_SOURCE), and started: then it is pending like an Isend or
	 * an Irecv until it completes */
	void (*pinit)(struct tly_rt_thread *t, int send, int peer, int tag, MPI_Comm comm, int64_t bytes,
		      MPI_Request req);
	void (*start)(struct tly_rt_thread *t, MPI_Request req, int64_t ts);
	/* a request freed by MPI_Request_free (it completes unseen: the handle
	 * may come back for another request) */
	void (*freed)(struct tly_rt_thread *t, MPI_Request req);
};
void tly_mpi_msg_hooks_set(const struct tly_mpi_msg_hooks *h);
int tly_mpi_msg_on(void);
/* The helpers mpi_trace.txt's statements call (mpi_msg.c). */
void tly_mpi_msg_send(struct tly_mpi_call *c, int peer, int tag, MPI_Comm comm, int64_t bytes);
void tly_mpi_msg_isend(struct tly_mpi_call *c, int peer, int tag, MPI_Comm comm, int64_t bytes, MPI_Request req);
void tly_mpi_msg_recv(struct tly_mpi_call *c, const MPI_Status *st, MPI_Comm comm);
void tly_mpi_msg_irecv(struct tly_mpi_call *c, MPI_Comm comm, MPI_Request req);
/* Copies of n requests (c->scratch) and, where *statuses is
 * MPI_STATUSES_IGNORE, statuses of ours in their place; NULL when no
 * trace follows the call or memory is short. */
MPI_Request *tly_mpi_msg_save(struct tly_mpi_call *c, int n, const MPI_Request *reqs, MPI_Status **statuses);
/* n requests completed: req[idx[i]] (idx NULL: req[i]) with status st[i]. */
void tly_mpi_msg_done(struct tly_mpi_call *c, int n, const MPI_Request *req, const int *idx, const MPI_Status *st);
void tly_mpi_msg_coll(struct tly_mpi_call *c, MPI_Comm comm, int root);
void tly_mpi_msg_icoll(struct tly_mpi_call *c, MPI_Comm comm, int root, MPI_Request req);
void tly_mpi_msg_pinit(struct tly_mpi_call *c, int send, int peer, int tag, MPI_Comm comm, int64_t bytes,
		       MPI_Request req);
void tly_mpi_msg_start(struct tly_mpi_call *c, int n, const MPI_Request *req);
void tly_mpi_msg_freed(struct tly_mpi_call *c, MPI_Request req);
/* The call's end: its collective, then the scratch freed (tly_mpi_end). */
void tly_mpi_msg_end(struct tly_mpi_call *c, int64_t sent, int64_t recv, int64_t now);

/* 0: not recorded (runtime off, nested call, after the file is written).
 * ra: the wrapper's __builtin_return_address(0). */
int tly_mpi_begin(struct tly_mpi_call *c, int id, const void *ra);
void tly_mpi_end(struct tly_mpi_call *c, int64_t sent, int64_t recv);
/* MPI call sites (mpi_sites.c): the frames of a call (pc[0] = ra, the
 * rest from backtrace when depth > 1), then its statistics. */
void tly_mpi_site_frames(const void *ra, int depth, uintptr_t *pc);
void tly_mpi_site_add(struct tly_rt_thread *t, int id, const uintptr_t *pc, int64_t dt, int64_t sent,
		      int64_t recv);
/* The next definition of a Fortran symbol, cached in *slot. */
void *tly_mpi_fsym(void **slot, const char *sym, const char *fallback);

static inline int64_t tly_mpi_tsz(MPI_Datatype t)
{
	int s = 0;

	if (t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &s) != MPI_SUCCESS)
		return 0;
	return s;
}

static inline int tly_mpi_csz(MPI_Comm c)
{
	int n = 0;

	PMPI_Comm_size(c, &n);
	return n;
}

static inline int tly_mpi_rank(MPI_Comm c)
{
	int r = 0;

	PMPI_Comm_rank(c, &r);
	return r;
}

static inline int64_t tly_mpi_sumv(const int *v, MPI_Comm c)
{
	int64_t s = 0;

	for (int i = 0, n = tly_mpi_csz(c); i < n; i++)
		s += v[i];
	return s;
}

static inline int64_t tly_mpi_rcvd(const MPI_Status *st, int count, MPI_Datatype t)
{
	int n;

	if (st == MPI_STATUS_IGNORE || PMPI_Get_count(st, t, &n) != MPI_SUCCESS || n == MPI_UNDEFINED)
		return (int64_t)count * tly_mpi_tsz(t);
	return (int64_t)n * tly_mpi_tsz(t);
}

#define TSZ(t) tly_mpi_tsz(t)
#define CSZ(c) tly_mpi_csz(c)
#define RANK(c) tly_mpi_rank(c)
#define SUMV(v, c) tly_mpi_sumv(v, c)
#define NIP(b) ((const void *)(b) != (const void *)MPI_IN_PLACE)
#define RCVD(st, n, t) tly_mpi_rcvd(st, n, t)
#define PEER(r) ((r) != MPI_PROC_NULL)

/* This rank's rows of the mpi_sites table (mpi_sites.c, for mpi_rows.c). */
struct tly_rows;
void tly_mpi_site_rows(struct tly_rt_proc *p, struct tly_rows *r);

#endif /* TALLY_MPI_SUPPORT_H */
