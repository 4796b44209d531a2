/*
 * trace_reqs.h - the MPI requests the trace follows (trace_reqs.c), by
 * handle, for the whole process: a request posted on one thread and
 * completed on another is found there.  Two maps: the pending requests
 * (from an Isend, Irecv, non-blocking collective or MPI_Start to the
 * Wait or Test that completes them) and the persistent requests' *_init
 * arguments.  Each grows as it fills, so an ordinary code never loses a
 * record for want of room; only when memory is short is a request not
 * kept (the caller counts its records as dropped).
 */
#ifndef TALLY_TRACE_REQS_H
#define TALLY_TRACE_REQS_H

#include <mpi.h>
#include <stdint.h>

struct tly_trace_loc;   /* trace.h */

enum { TLY_RQ_RECV, TLY_RQ_SEND, TLY_RQ_COLL };
enum { TLY_REQS_PENDING, TLY_REQS_PERSISTENT, TLY_REQS_MAPS };

struct tly_trace_req {
	MPI_Request h;
	struct tly_trace_loc *l;   /* the location that posted it: its request id is that location's */
	uint64_t id;               /* the OTF2 request id (never 0 in a map) */
	MPI_Comm comm;             /* persistent: the *_init's (alive while the request is) */
	MPI_Group grp;             /* pending receive: comm's group, kept (trace_mpi.c), else MPI_GROUP_NULL */
	int kind;                  /* TLY_RQ_* */
	int op, root;              /* TLY_RQ_COLL: OTF2 op + 1, root as a world rank */
	int peer, tag;             /* persistent: the *_init's */
	int64_t sent, recv;        /* TLY_RQ_COLL: bytes; persistent send: bytes in sent */
};

/* Make the maps (before the MPI hooks are set). */
void tly_trace_reqs_init(void);
/* Put e in map m under its handle: 0, or -1 when memory is short (not
 * kept).  Pending requests may share a handle (Open MPI gives every send
 * it completed at once one static request): each is an entry of its own;
 * persistent requests may not (a handle made again replaces its entry). */
int tly_trace_reqs_put(int m, const struct tly_trace_req *e);
/* A request of handle h in map m copied to *out (take: and removed): of
 * several, location l's oldest, else the oldest of another's.  0: found,
 * -1: not. */
int tly_trace_reqs_get(int m, MPI_Request h, const struct tly_trace_loc *l, struct tly_trace_req *out, int take);
/* Free the maps once no hook runs (the close); a map whose lock is held
 * is left as it is (never waits). */
void tly_trace_reqs_free(void);

#endif /* TALLY_TRACE_REQS_H */
