/*
 * mpi_msg.c - the messages and collectives of MPI calls, for a trace
 * (mpi_trace.txt's statements call these; trace/trace_mpi.c registers
 * the hooks they forward to).  Without a trace each is one test.
 */
#include "mpi/mpi_support.h"

#include <stdlib.h>
#include <string.h>

static struct {
	const struct tly_mpi_msg_hooks *hooks;   /* set once, read with acquire */
} msg;

static const struct tly_mpi_msg_hooks *hooks(void)
{
	return __atomic_load_n(&msg.hooks, __ATOMIC_ACQUIRE);
}

void tly_mpi_msg_hooks_set(const struct tly_mpi_msg_hooks *h)
{
	__atomic_store_n(&msg.hooks, h, __ATOMIC_RELEASE);
}

int tly_mpi_msg_on(void)
{
	return hooks() != NULL;
}

/* The hooks while the call's trace lasts (they go when the trace closes). */
static const struct tly_mpi_msg_hooks *on(const struct tly_mpi_call *c)
{
	return c->msg ? hooks() : NULL;
}

void tly_mpi_msg_send(struct tly_mpi_call *c, int peer, int tag, MPI_Comm comm, int64_t bytes)
{
	const struct tly_mpi_msg_hooks *h = on(c);

	if (h && peer != MPI_PROC_NULL)
		h->send(c->t, peer, tag, comm, bytes, MPI_REQUEST_NULL, c->t0);
}

void tly_mpi_msg_isend(struct tly_mpi_call *c, int peer, int tag, MPI_Comm comm, int64_t bytes, MPI_Request req)
{
	const struct tly_mpi_msg_hooks *h = on(c);

	if (h && peer != MPI_PROC_NULL)
		h->send(c->t, peer, tag, comm, bytes, req, c->t0);
}

void tly_mpi_msg_recv(struct tly_mpi_call *c, const MPI_Status *st, MPI_Comm comm)
{
	const struct tly_mpi_msg_hooks *h = on(c);

	if (h && st && st != MPI_STATUS_IGNORE && st->MPI_SOURCE != MPI_PROC_NULL)
		h->recv(c->t, st, comm, tly_rt_now());
}

void tly_mpi_msg_irecv(struct tly_mpi_call *c, MPI_Comm comm, MPI_Request req)
{
	const struct tly_mpi_msg_hooks *h = on(c);

	if (h && req != MPI_REQUEST_NULL)
		h->irecv(c->t, comm, req, c->t0);
}

MPI_Request *tly_mpi_msg_save(struct tly_mpi_call *c, int n, const MPI_Request *reqs, MPI_Status **statuses)
{
	int own = statuses && *statuses == MPI_STATUSES_IGNORE;
	size_t need = (size_t)(n > 0 ? n : 1) * sizeof *reqs;
	char *p;

	if (!c->msg || n < 0 || !reqs)
		return NULL;
	p = malloc(need + (own ? (size_t)(n > 0 ? n : 1) * sizeof(MPI_Status) : 0));
	if (!p)
		return NULL;
	memcpy(p, reqs, (size_t)n * sizeof *reqs);
	if (own)
		*statuses = (MPI_Status *)(void *)(p + need);
	c->scratch = p;
	return (MPI_Request *)(void *)p;
}

void tly_mpi_msg_done(struct tly_mpi_call *c, int n, const MPI_Request *req, const int *idx, const MPI_Status *st)
{
	const struct tly_mpi_msg_hooks *h = on(c);
	int64_t now;

	if (!h || !req || !st || st == MPI_STATUS_IGNORE || st == MPI_STATUSES_IGNORE)
		return;
	now = tly_rt_now();
	for (int i = 0; i < n; i++) {
		MPI_Request r = req[idx ? idx[i] : i];

		if (r != MPI_REQUEST_NULL)
			h->done(c->t, r, &st[i], now);
	}
}

void tly_mpi_msg_coll(struct tly_mpi_call *c, MPI_Comm comm, int root)
{
	c->coll = 1;
	c->comm = comm;
	c->root = root;
}

void tly_mpi_msg_icoll(struct tly_mpi_call *c, MPI_Comm comm, int root, MPI_Request req)
{
	c->coll = 2;
	c->comm = comm;
	c->root = root;
	c->ireq = req;
}

void tly_mpi_msg_pinit(struct tly_mpi_call *c, int send, int peer, int tag, MPI_Comm comm, int64_t bytes,
		       MPI_Request req)
{
	const struct tly_mpi_msg_hooks *h = on(c);

	if (h && h->pinit && req != MPI_REQUEST_NULL)
		h->pinit(c->t, send, peer, tag, comm, bytes, req);
}

void tly_mpi_msg_start(struct tly_mpi_call *c, int n, const MPI_Request *req)
{
	const struct tly_mpi_msg_hooks *h = on(c);

	for (int i = 0; h && h->start && req && i < n; i++)
		if (req[i] != MPI_REQUEST_NULL)
			h->start(c->t, req[i], c->t0);
}

void tly_mpi_msg_freed(struct tly_mpi_call *c, MPI_Request req)
{
	const struct tly_mpi_msg_hooks *h = on(c);

	if (h && h->freed && req != MPI_REQUEST_NULL)
		h->freed(c->t, req);
}

void tly_mpi_msg_end(struct tly_mpi_call *c, int64_t sent, int64_t recv, int64_t now)
{
	const struct tly_mpi_msg_hooks *h = on(c);

	if (c->coll == 1 && h)
		h->coll(c->t, c->id, c->comm, c->root, sent, recv, c->t0, now);
	else if (c->coll == 2 && h && h->icoll && c->ireq != MPI_REQUEST_NULL)
		h->icoll(c->t, c->id, c->comm, c->root, sent, recv, c->ireq, now);
	free(c->scratch);
	c->scratch = NULL;
}
