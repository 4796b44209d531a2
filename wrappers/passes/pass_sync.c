/*
 * pass_sync.c - one pass schedule per job.  Every rank computes its own
 * view at start-up (the event list, the device and which events fit
 * together may differ between ranks); at MPI_Init, a point every rank
 * reaches, rank 0's schedule is broadcast on the tool's communicator and
 * every rank compares the hashes.  A rank whose view differs says what
 * differs, rank 0 lists the ranks that differ, and the rank uses rank 0's
 * schedule when it can; the job always carries on.
 */
#include "passes/passes.h"

#include <inttypes.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tally_shared.h"

static struct tly_pass_state state = { .agrees = { 1, 1 } };

struct tly_pass_state *tly_pass_state(void)
{
	return &state;
}

uint64_t tly_pass_hash(struct tly_rt_sched *s)
{
	uint64_t h = TLY_FNV_BASIS;

	h = tly_fnv1a(h, s->device, strlen(s->device) + 1);
	h = tly_fnv1a(h, &s->nev, sizeof s->nev);
	h = tly_fnv1a(h, &s->npasses, sizeof s->npasses);
	h = tly_fnv1a(h, &s->gpu, sizeof s->gpu);
	for (int i = 0; i < s->nev; i++) {
		h = tly_fnv1a(h, s->names[i], strlen(s->names[i]) + 1);
		h = tly_fnv1a(h, &s->pass_of[i], sizeof s->pass_of[i]);
	}
	h = tly_fnv1a(h, &s->extra_hash, sizeof s->extra_hash);
	s->hash = h & 0x7fffffffffffffffULL;  /* stored as a signed I64 */
	return s->hash;
}

static void describe(const struct tly_rt_sched *s, char *buf, size_t len)
{
	size_t at = (size_t)snprintf(buf, len, "%d event(s) in %d pass(es) on '%s':", s->nev, s->npasses,
				     s->device);

	for (int i = 0; i < s->nev && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, " %s[%d]", s->names[i], s->pass_of[i]);
}

/* Rank 0 names the ranks whose view differs. */
static void report_ranks(const uint64_t *all, int n, uint64_t h0, const char *what)
{
	char list[256] = "";
	size_t at = 0;
	int bad = 0;

	for (int r = 1; r < n; r++) {
		if (all[r] == h0)
			continue;
		if (bad++ < 16 && at < sizeof list)
			at += (size_t)snprintf(list + at, sizeof list - at, "%s%d", at ? ", " : "", r);
	}
	if (bad)
		tly_rt_log(1, "%s pass schedule: %d rank(s) (%s%s) do not agree with rank 0 "
			   "(different events, device type or config); see their messages", what, bad,
			   list, bad > 16 ? ", ..." : "");
}

/* This rank's own view differs: say how, and use rank 0's when possible
 * (CPU rotation only: its event sets are built at the first visit; GPU
 * groups are enabled already, so a GPU view is kept and flagged). */
static void adopt(struct tly_rt_sched *own, const struct tly_rt_sched *r0, int k)
{
	char a[512], b[512];
	int can = k == 0 && state.rotate && r0->npasses >= 2;
	const char *what = can ? "using rank 0's"
		: k ? "this rank keeps its own GPU metrics (values not comparable)"
		: state.rotate ? "rank 0 does not rotate passes: no pass values on this rank"
		: "this rank keeps its own events (values not comparable)";

	describe(own, a, sizeof a);
	describe(r0, b, sizeof b);
	tly_rt_log(1, "%s pass schedule differs from rank 0's: here %s; rank 0: %s; %s", k ? "GPU" : "CPU",
		   a, b, what);
	if (can)
		*own = *r0;
	else if (k == 0)
		state.rotate = 0;
}

static void sync_one(MPI_Comm comm, int rank, int n, int k)
{
	struct tly_rt_sched *own = k ? &state.gpu : &state.cpu, r0;
	uint64_t h = tly_pass_hash(own), *all = rank == 0 ? calloc((size_t)n, sizeof *all) : NULL;

	state.own_hash[k] = h;
	r0 = *own;
	PMPI_Bcast(&r0, (int)sizeof r0, MPI_BYTE, 0, comm);
	PMPI_Gather(&h, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, comm);
	if (all)
		report_ranks(all, n, h, k ? "GPU" : "CPU");
	free(all);
	state.r0_hash[k] = r0.hash;
	state.agrees[k] = r0.hash == h;
	if (!state.agrees[k])
		adopt(own, &r0, k);
}

static void sync_kind(void *comm_ptr, int k)
{
	MPI_Comm comm;
	int rank, n;

	if (!comm_ptr)
		return;   /* a program without MPI: nothing to compare */
	comm = *(MPI_Comm *)comm_ptr;
	PMPI_Comm_rank(comm, &rank);
	PMPI_Comm_size(comm, &n);
	sync_one(comm, rank, n, k);
}

void tly_pass_sync_cpu(void *comm_ptr)
{
	sync_kind(comm_ptr, 0);
}

/* after every part's job_start: the GPU schedule is made by then */
void tly_pass_sync_gpu(void *comm_ptr)
{
	sync_kind(comm_ptr, 1);
}

const struct tly_rt_sched_view tly_pass_sched_view = {
	.gpu = &state.gpu,
	.gpu_replay = &state.gpu_replay,
	.gpu_image = &state.gpu_image,
	.gpu_list = state.gpu_list,
	.replay_index = tly_pass_replay_index,
	.hash = tly_pass_hash,
};
