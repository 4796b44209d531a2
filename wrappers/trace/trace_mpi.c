/*
 * trace_mpi.c - MPI messages and collectives in the trace (the MPI
 * layer's hooks, mpi/mpi_support.h): MpiSend/MpiRecv for blocking calls,
 * MpiIsend/MpiIsendComplete and MpiIrecvRequest/MpiIrecv for requests
 * (matched at the completing Wait or Test by the request handle, kept per
 * thread; MpiRequestCancelled for a cancelled one), MpiCollectiveBegin/End with root and bytes (a
 * non-blocking collective's pair inside the call that completes it, at
 * the completion).  A persistent request is pending from each MPI_Start
 * like an Isend or Irecv of its *_init's arguments.  Every event names
 * the archive's one communicator, MPI_COMM_WORLD: peers and roots of
 * other communicators are translated to world ranks, so every message
 * line joins two locations of the archive.
 */
#include "trace/trace.h"
#include "trace/trace_reqs.h"
#include "trace/trace_state.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi_support.h"

static struct {
	uint8_t *op;   /* [mpi function id] -> OTF2 collective op */
} tm;

static const struct { const char *name; OTF2_CollectiveOp op; } ops[] = {
	{ "MPI_Barrier", OTF2_COLLECTIVE_OP_BARRIER }, { "MPI_Bcast", OTF2_COLLECTIVE_OP_BCAST },
	{ "MPI_Gather", OTF2_COLLECTIVE_OP_GATHER }, { "MPI_Gatherv", OTF2_COLLECTIVE_OP_GATHERV },
	{ "MPI_Scatter", OTF2_COLLECTIVE_OP_SCATTER }, { "MPI_Scatterv", OTF2_COLLECTIVE_OP_SCATTERV },
	{ "MPI_Allgather", OTF2_COLLECTIVE_OP_ALLGATHER }, { "MPI_Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV },
	{ "MPI_Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL }, { "MPI_Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV },
	{ "MPI_Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW }, { "MPI_Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE },
	{ "MPI_Reduce", OTF2_COLLECTIVE_OP_REDUCE }, { "MPI_Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER },
	{ "MPI_Scan", OTF2_COLLECTIVE_OP_SCAN }, { "MPI_Exscan", OTF2_COLLECTIVE_OP_EXSCAN },
	{ "MPI_Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK },
};

/* Ranks of another communicator are translated by its group.  A pending
 * receive keeps its communicator's group from the post: MPI lets a
 * program free a communicator with requests pending, the requests
 * complete normally, and the communicator goes with the last of them,
 * before the completing call returns (its group would then be read from
 * freed memory).  MPI_GROUP_NULL for MPI_COMM_WORLD: ranks as they are. */
static MPI_Group keep_group(MPI_Comm comm)
{
	MPI_Group g;

	if (comm == MPI_COMM_WORLD || comm == MPI_COMM_NULL || PMPI_Comm_group(comm, &g) != MPI_SUCCESS)
		return MPI_GROUP_NULL;
	return g;
}

static void drop_group(MPI_Group *g)
{
	if (*g != MPI_GROUP_NULL)
		PMPI_Group_free(g);
	*g = MPI_GROUP_NULL;
}

/* rank r of group g (MPI_GROUP_NULL: the world's) as a rank of MPI_COMM_WORLD */
static uint32_t group_world_rank(MPI_Group g, int r)
{
	MPI_Group wg;
	int w = r;

	if (r < 0)
		return OTF2_UNDEFINED_UINT32;
	if (g == MPI_GROUP_NULL)
		return (uint32_t)r;
	if (PMPI_Comm_group(MPI_COMM_WORLD, &wg) == MPI_SUCCESS) {
		if (PMPI_Group_translate_ranks(g, 1, &r, wg, &w) != MPI_SUCCESS || w == MPI_UNDEFINED)
			w = r;
		PMPI_Group_free(&wg);
	}
	return (uint32_t)w;
}

/* rank r of comm (alive) as a rank of MPI_COMM_WORLD */
static uint32_t world_rank(MPI_Comm comm, int r)
{
	MPI_Group g = r < 0 ? MPI_GROUP_NULL : keep_group(comm);
	uint32_t w = group_world_rank(g, r);

	drop_group(&g);
	return w;
}

static struct tly_trace_loc *loc(struct tly_rt_thread *t)
{
	if (!__atomic_load_n(&tly_trace()->open, __ATOMIC_ACQUIRE))
		return NULL;
	return tly_trace_loc_of(t, t->depth);
}

/* Events of a thread that has no location (its records cannot be written): counted for the check. */
static void unlocated(int64_t n)
{
	__atomic_fetch_add(&tly_trace()->unlocated, n, __ATOMIC_RELAXED);
}

/* A new pending request of l (e's kind and arguments); its id, 0 when it
 * cannot be kept (no memory). */
static uint64_t req_add(struct tly_trace_loc *l, MPI_Request h, MPI_Comm comm, int kind, struct tly_trace_req *e)
{
	struct tly_trace_req z = { 0 };
	int r;

	if (!e)
		e = &z;
	e->h = h;
	e->l = l;
	e->comm = MPI_COMM_NULL;   /* not to be used at the completion: it may be gone */
	e->grp = kind == TLY_RQ_RECV ? keep_group(comm) : MPI_GROUP_NULL;
	e->kind = kind;
	e->id = ++l->next_req;
	r = tly_trace_reqs_put(TLY_REQS_PENDING, e);
	if (r < 0)
		drop_group(&e->grp);
	return r < 0 ? 0 : e->id;
}

static void on_send(struct tly_rt_thread *t, int peer, int tag, MPI_Comm comm, int64_t bytes, MPI_Request req,
		    int64_t ts)
{
	struct tly_trace_loc *l = loc(t);
	uint32_t to = world_rank(comm, peer);

	uint64_t id;

	if (!l) {
		unlocated(1 + (req != MPI_REQUEST_NULL));
		return;
	}
	if (!tly_trace_admit(l, &ts)) {
		l->dropped += req != MPI_REQUEST_NULL;   /* and its MpiIsendComplete */
		return;
	}
	tly_trace_check_msg((uint32_t)tly_trace()->rank, to, (uint32_t)tag, (uint64_t)bytes, 1);
	if (req == MPI_REQUEST_NULL) {
		OTF2_EvtWriter_MpiSend(l->w, NULL, (OTF2_TimeStamp)ts, to, 0, (uint32_t)tag, (uint64_t)bytes);
		return;
	}
	/* no memory for the request: the message is written, its completion
	 * cannot be (the request is not known when it completes) */
	if (!(id = req_add(l, req, comm, TLY_RQ_SEND, NULL)))
		l->dropped++;
	OTF2_EvtWriter_MpiIsend(l->w, NULL, (OTF2_TimeStamp)ts, to, 0, (uint32_t)tag, (uint64_t)bytes, id);
}

static void recv_event(struct tly_trace_loc *l, const MPI_Status *st, MPI_Group g, int64_t ts, uint64_t id)
{
	int n = 0;
	uint32_t from;

	PMPI_Get_count(st, MPI_BYTE, &n);
	if (n == MPI_UNDEFINED)
		n = 0;
	if (!tly_trace_admit(l, &ts))
		return;
	from = group_world_rank(g, st->MPI_SOURCE);
	tly_trace_check_msg(from, (uint32_t)tly_trace()->rank, (uint32_t)st->MPI_TAG, (uint64_t)n, -1);
	if (id)
		OTF2_EvtWriter_MpiIrecv(l->w, NULL, (OTF2_TimeStamp)ts, from, 0, (uint32_t)st->MPI_TAG, (uint64_t)n, id);
	else
		OTF2_EvtWriter_MpiRecv(l->w, NULL, (OTF2_TimeStamp)ts, from, 0, (uint32_t)st->MPI_TAG, (uint64_t)n);
}

static void on_recv(struct tly_rt_thread *t, const MPI_Status *st, MPI_Comm comm, int64_t ts)
{
	struct tly_trace_loc *l = loc(t);
	MPI_Group g;

	if (!l) {
		unlocated(1);
		return;
	}
	g = keep_group(comm);
	recv_event(l, st, g, ts, 0);
	drop_group(&g);
}

static void on_irecv(struct tly_rt_thread *t, MPI_Comm comm, MPI_Request req, int64_t ts)
{
	struct tly_trace_loc *l = loc(t);
	uint64_t id;

	if (!l) {
		unlocated(2);   /* its MpiIrecvRequest and its MpiIrecv */
		return;
	}
	if (!(id = req_add(l, req, comm, TLY_RQ_RECV, NULL))) {
		l->dropped += 2;   /* no memory for the request: its MpiIrecvRequest and its MpiIrecv */
		return;
	}
	if (tly_trace_admit(l, &ts))
		OTF2_EvtWriter_MpiIrecvRequest(l->w, NULL, (OTF2_TimeStamp)ts, id);
}

static void coll_events(struct tly_trace_loc *l, int op, uint32_t wroot, int64_t sent, int64_t recv, int64_t t0,
			int64_t t1);

/* A request posted on another thread (its location e->l) completes on
 * this one (l): OTF2 ties a request's records to one location, and the
 * other's writer is its own thread's.  A receive is written here as a
 * blocking MpiRecv (the message keeps its two ends), a collective here as
 * it would be; the record the posting location misses (MpiIrecv,
 * MpiIsendComplete, MpiRequestCancelled) is counted dropped here. */
static void done_elsewhere(struct tly_trace_loc *l, const struct tly_trace_req *e, const MPI_Status *st, int cancelled,
			   int64_t ts)
{
	int msg = e->kind == TLY_RQ_RECV && !cancelled && st->MPI_SOURCE >= 0;

	/* (a receive from MPI_PROC_NULL has no record at its end anyway) */
	l->dropped += msg || cancelled || e->kind == TLY_RQ_SEND;
	if (msg)
		recv_event(l, st, e->grp, ts, 0);
}

static void on_done(struct tly_rt_thread *t, MPI_Request req, const MPI_Status *st, int64_t ts)
{
	struct tly_trace_loc *l = loc(t);
	struct tly_trace_req e;
	int cancelled = 0;

	if (tly_trace_reqs_get(TLY_REQS_PENDING, req, l, &e, 1) != 0)
		return;   /* not a request the trace follows (I/O, RMA; or counted dropped when it was posted) */
	if (!l) {
		unlocated(e.kind == TLY_RQ_COLL ? 2 : 1);
		drop_group(&e.grp);
		return;
	}
	if (e.kind == TLY_RQ_COLL) {
		coll_events(l, e.op, (uint32_t)e.root, e.sent, e.recv, ts, ts);
		return;
	}
	/* a cancelled request's status names no peer */
	if (PMPI_Test_cancelled(st, &cancelled) != MPI_SUCCESS)
		cancelled = 0;
	if (e.l != l)
		done_elsewhere(l, &e, st, cancelled, ts);
	else if (cancelled) {
		if (tly_trace_admit(l, &ts))
			OTF2_EvtWriter_MpiRequestCancelled(l->w, NULL, (OTF2_TimeStamp)ts, e.id);
	} else if (e.kind == TLY_RQ_RECV) {
		if (st->MPI_SOURCE >= 0)
			recv_event(l, st, e.grp, ts, e.id);
	} else if (tly_trace_admit(l, &ts)) {
		OTF2_EvtWriter_MpiIsendComplete(l->w, NULL, (OTF2_TimeStamp)ts, e.id);
	}
	drop_group(&e.grp);
}

static void coll_events(struct tly_trace_loc *l, int op, uint32_t wroot, int64_t sent, int64_t recv, int64_t t0,
			int64_t t1)
{
	if (tly_trace_admit(l, &t0))
		OTF2_EvtWriter_MpiCollectiveBegin(l->w, NULL, (OTF2_TimeStamp)t0);
	else {
		l->dropped++;   /* no begin: no end (the cap); both counted */
		return;
	}
	if (t1 < l->last_ts)
		t1 = l->last_ts;
	OTF2_EvtWriter_MpiCollectiveEnd(l->w, NULL, (OTF2_TimeStamp)t1, (OTF2_CollectiveOp)(op - 1), 0, wroot,
					(uint64_t)sent, (uint64_t)recv);
	l->last_ts = t1;
	l->kept++;
}

static void on_coll(struct tly_rt_thread *t, int id, MPI_Comm comm, int root, int64_t sent, int64_t recv,
		    int64_t t0, int64_t t1)
{
	struct tly_trace_loc *l = loc(t);

	if (!tm.op || !tm.op[id])
		return;
	if (l)
		coll_events(l, tm.op[id], world_rank(comm, root), sent, recv, t0, t1);
	else
		unlocated(2);
}

/* A non-blocking collective: kept with its request until it completes. */
static void on_icoll(struct tly_rt_thread *t, int id, MPI_Comm comm, int root, int64_t sent, int64_t recv,
		     MPI_Request req, int64_t ts)
{
	struct tly_trace_loc *l = loc(t);
	struct tly_trace_req e = { .op = tm.op ? tm.op[id] : 0, .sent = sent, .recv = recv };

	(void)ts;
	if (!e.op)
		return;
	/* the root as a world rank now: the communicator may be freed before the completion */
	e.root = (int)world_rank(comm, root);
	if (!l)
		unlocated(2);
	else if (!req_add(l, req, comm, TLY_RQ_COLL, &e))
		l->dropped += 2;   /* no memory for the request: the collective's begin and end */
}

static void on_pinit(struct tly_rt_thread *t, int send, int peer, int tag, MPI_Comm comm, int64_t bytes,
		     MPI_Request req)
{
	struct tly_trace_req e = { .h = req, .id = 1, .comm = comm, .grp = MPI_GROUP_NULL,
				   .kind = send ? TLY_RQ_SEND : TLY_RQ_RECV,
				   .peer = peer, .tag = tag, .sent = bytes };

	(void)t;
	/* a handle made again replaces its earlier *_init; with no memory it
	 * is not kept, and each of its starts counts its records dropped */
	tly_trace_reqs_put(TLY_REQS_PERSISTENT, &e);
}

static void on_start(struct tly_rt_thread *t, MPI_Request req, int64_t ts)
{
	struct tly_trace_loc *l = loc(t);
	struct tly_trace_req p;

	if (tly_trace_reqs_get(TLY_REQS_PERSISTENT, req, l, &p, 0) != 0) {
		/* its *_init was not kept (no memory): the message's two records */
		if (l)
			l->dropped += 2;
		else
			unlocated(2);
		return;
	}
	if (p.kind == TLY_RQ_SEND)
		on_send(t, p.peer, p.tag, p.comm, p.sent, req, ts);
	else
		on_irecv(t, p.comm, req, ts);
}

/* MPI_Request_free: the request completes where the trace cannot see it.
 * Its entry goes now - Open MPI gives the handle to a later request, whose
 * completion would otherwise take this stale entry (its id, its kind) -
 * and its end record is counted dropped (a send's MpiIsendComplete, a
 * receive's MpiIrecv, a collective's begin and end). */
static void on_freed(struct tly_rt_thread *t, MPI_Request req)
{
	struct tly_trace_loc *l = loc(t);
	struct tly_trace_req e;

	if (tly_trace_reqs_get(TLY_REQS_PENDING, req, l, &e, 1) != 0)
		return;   /* not pending (a persistent one not started, or not followed) */
	drop_group(&e.grp);
	if (!l)
		unlocated(e.kind == TLY_RQ_COLL ? 2 : 1);
	else
		l->dropped += e.kind == TLY_RQ_COLL ? 2 : 1;
}

static const struct tly_mpi_msg_hooks hooks = {
	.pinit = on_pinit, .start = on_start, .freed = on_freed,
	.send = on_send, .recv = on_recv, .irecv = on_irecv, .done = on_done, .coll = on_coll, .icoll = on_icoll,
};

void tly_trace_mpi_start(void)
{
	tly_trace_reqs_init();
	tm.op = calloc((size_t)tly_mpi_nfuncs, 1);
	for (int i = 0; tm.op && i < tly_mpi_nfuncs; i++)
		for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
			const char *n = tly_mpi_names[i];

			/* MPI_Iallreduce: MPI_Allreduce's op (non-blocking) */
			if (!strcmp(n, ops[k].name) ||
			    (!strncmp(n, "MPI_I", 5) && n[5] == ops[k].name[4] + ('a' - 'A') && !strcmp(n + 6, ops[k].name + 5)))
				tm.op[i] = (uint8_t)(ops[k].op + 1);
		}
	tly_mpi_msg_hooks_set(&hooks);
}

void tly_trace_mpi_stop(void)
{
	tly_mpi_msg_hooks_set(NULL);
}
