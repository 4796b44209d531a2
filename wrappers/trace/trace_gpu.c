/*
 * trace_gpu.c - the GPU streams of the trace (trace_gpu.h): CUPTI's
 * Activity API started with the archive when Tally is built with CUDA
 * and TALLY_CUPTI=tally (its buffer callbacks are one per process, like
 * the subscription: TALLY_CUPTI=app leaves them to the application's
 * tool), its records written by trace_gpu_map.c; at each launch a metric
 * event tally::cuda_launch with the launch's correlation id on the
 * launching thread's location, so each kernel is tied to the CPU thread
 * and region that launched it.  The close: CUPTI flushed and stopped,
 * the streams' rows, the region names of every rank's GPU streams
 * unified (every rank computes the same list from an allgather).
 */
#include "trace/trace.h"
#include "trace/trace_gpu.h"
#include "trace/trace_gpu_map.h"
#include "trace/trace_state.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regions/regions.h"

#if TALLY_TRACE_GPU
#include "gpu/gpu_rt.h"
#include "tally_gpu.h"
#include "tally_shared.h"
#endif

static struct {
	struct tly_tgpu g;   /* its own lock */
	int on;              /* atomic */
	int own_hook;
} tg;

#if TALLY_TRACE_GPU
static uint64_t clock_ns(void)
{
	return (uint64_t)tly_rt_now();
}

static void consume(const tally_gpu_activity_t *r, size_t n, uint64_t dropped, void *ud)
{
	(void)ud;
	tly_tgpu_add(&tg.g, r, n, dropped);
}

/* Registered at the first launch, after the CUDA runtime's exit handler,
 * so it runs before that one destroys the contexts (as gpu_rt.c's
 * harvest): what CUPTI holds reaches the archive while they live, and
 * the Activity API is stopped then -- no CUPTI call after the contexts
 * are gone (both device tests died at exit with a later flush). */
static void flush_at_exit(void)
{
	tally_gpu_activity_stop();
}

/* On the launching thread, before the launch is submitted. */
static void launch_mark(uint32_t corr)
{
	static int exit_hook;
	struct tly_rt_thread *t;
	struct tly_trace_loc *l;
	int64_t ts = tly_rt_now();
	OTF2_Type ty = OTF2_TYPE_UINT64;
	OTF2_MetricValue v = { .unsigned_int = corr };

	if (!__atomic_exchange_n(&exit_hook, 1, __ATOMIC_ACQ_REL))
		atexit(flush_at_exit);
	if (!__atomic_load_n(&tly_trace()->open, __ATOMIC_ACQUIRE) || !(t = tly_rt_self()) ||
	    !(l = tly_trace_loc_of(t, t->depth)))
		return;
	if (tly_trace_admit(l, &ts))
		OTF2_EvtWriter_Metric(l->w, NULL, (OTF2_TimeStamp)ts, TLY_TGPU_METRIC_CLASS(tly_rt_proc()->nev), 1, &ty, &v);
}

static uint64_t own_hook(const tally_gpu_launch_t *l, void *ud)
{
	(void)ud;
	if (l->phase == 0)
		launch_mark(l->correlation_id);
	return 0;
}

void tly_trace_gpu_start(void)
{
	struct tly_trace_state *s = tly_trace();
	const char *how = "";
	int rc;

	if (!strcmp(tly_rt_proc()->opt.raw.cupti, "app")) {
		tly_rt_log(2, "trace: GPU streams not traced: TALLY_CUPTI=app leaves CUPTI to the application's tool");
		return;
	}
	tly_tgpu_init(&tg.g, s->ar, (uint64_t)s->rank << TLY_TRACE_TSHIFT | TLY_TGPU_LOC, s->opt.max_events);
	tally_gpu_activity_serialize(tly_gpu_rt_per_kernel());   /* the WaitNs kernels otherwise counted */
	rc = tally_gpu_activity_start(consume, NULL, clock_ns, &how);
	if (rc != PAPI_OK) {
		tly_rt_log(2, "trace: GPU streams not traced: %s", tly_err_detail());
		tly_tgpu_free(&tg.g);
		return;
	}
	__atomic_store_n(&tg.on, 1, __ATOMIC_RELEASE);
	tly_gpu_rt_launch_observer(launch_mark);
	if (!tally_gpu_subscribed())
		tg.own_hook = tally_gpu_set_launch_hook(own_hook, NULL) == PAPI_OK;
	tly_rt_log(2, "trace: GPU streams from CUPTI's Activity API (clock: %s)", how);
}

static void stop_cupti(void)
{
	tly_gpu_rt_launch_observer(NULL);
	if (tg.own_hook)
		tally_gpu_set_launch_hook(NULL, NULL);
	tg.own_hook = 0;
	tally_gpu_activity_stop();
}
#else
void tly_trace_gpu_start(void)
{
}

static void stop_cupti(void)
{
}
#endif

void tly_trace_gpu_stop(void)
{
	if (__atomic_load_n(&tg.on, __ATOMIC_ACQUIRE))
		stop_cupti();
}

int tly_trace_gpu_close(int64_t *v, int max, uint64_t *cupti_dropped)
{
	int n;

	*cupti_dropped = 0;
	if (!__atomic_load_n(&tg.on, __ATOMIC_ACQUIRE))
		return 0;
	n = tly_tgpu_close(&tg.g, v, max);
	*cupti_dropped = tg.g.cupti_dropped;
	return n;
}

int tly_trace_gpu_count(void)
{
	int n = 0;

	if (__atomic_load_n(&tg.on, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&tg.g.lock);
		n = tg.g.ns;
		pthread_mutex_unlock(&tg.g.lock);
	}
	return n;
}

/* Every rank's GPU region names, concatenated ('\0' after each), in rank
 * order, deduplicated the same way on every rank: *all (rank 0 keeps it
 * for the global definitions), and this rank's local -> global ids. */
static char *gather_names(void *comm, int *nall, uint64_t **gid, uint32_t base)
{
	size_t len = 0, tot = 0;
	char *mine, *buf, *all = NULL;
	int nr = 1, *cnt = NULL, *dsp = NULL, me = 0, mlen;

	for (int32_t i = 0; i < tg.g.nnames; i++)
		len += strlen(tg.g.names[i]) + 1;
	mine = malloc(len + 1);
	for (int32_t i = 0, at = 0; mine && i < tg.g.nnames; i++)
		at += sprintf(mine + at, "%s", tg.g.names[i]) + 1;
	mlen = mine ? (int)len : 0;
	if (comm) {
		PMPI_Comm_size(*(MPI_Comm *)comm, &nr);
		PMPI_Comm_rank(*(MPI_Comm *)comm, &me);
	}
	cnt = calloc((size_t)nr, sizeof *cnt);
	dsp = calloc((size_t)nr, sizeof *dsp);
	if (comm)
		PMPI_Allgather(&mlen, 1, MPI_INT, cnt, 1, MPI_INT, *(MPI_Comm *)comm);
	else if (cnt)
		cnt[0] = mlen;
	for (int r = 0; cnt && dsp && r < nr; r++) {
		dsp[r] = (int)tot;
		tot += (size_t)cnt[r];
	}
	buf = malloc(tot + 1);
	if (comm)
		PMPI_Allgatherv(mine, mlen, MPI_CHAR, buf, cnt, dsp, MPI_CHAR, *(MPI_Comm *)comm);
	else if (buf && mine)
		memcpy(buf, mine, tot);
	*nall = 0;
	*gid = calloc((size_t)(tg.g.nnames ? tg.g.nnames : 1), sizeof **gid);
	all = malloc(tot + 1);
	for (int r = 0; buf && all && *gid && cnt && dsp && r < nr; r++)
		for (size_t at = (size_t)dsp[r], k = 0; at < (size_t)dsp[r] + (size_t)cnt[r]; k++) {
			const char *nm = buf + at;
			int j = 0;
			size_t aat = 0;

			for (; j < *nall && strcmp(all + aat, nm); j++)
				aat += strlen(all + aat) + 1;
			if (j == *nall) {
				strcpy(all + aat, nm);
				(*nall)++;
			}
			if (r == me)
				(*gid)[k] = base + (uint64_t)j;
			at += strlen(nm) + 1;
		}
	free(mine);
	free(buf);
	free(cnt);
	free(dsp);
	return all;
}

char **tly_trace_gpu_defs(void *comm, uint32_t base, const int64_t off[4], int *nnames)
{
	uint64_t *gid = NULL;
	char *all, **names;

	*nnames = 0;
	all = gather_names(comm, nnames, &gid, base);
	if (__atomic_load_n(&tg.on, __ATOMIC_ACQUIRE))
		tly_tgpu_local_defs(&tg.g, gid, off);
	free(gid);
	names = malloc((size_t)(*nnames + 1) * sizeof *names);
	for (int i = 0, at = 0; names && all && i < *nnames; i++) {
		names[i] = all + at;
		at += (int)strlen(all + at) + 1;
	}
	if (!names || !all) {
		free(names);
		free(all);
		*nnames = 0;
		return NULL;
	}
	names[*nnames] = all;   /* owns the strings */
	return names;
}

void tly_trace_gpu_free(char **names, int nnames)
{
	if (names)
		free(names[nnames]);
	free(names);
	if (__atomic_exchange_n(&tg.on, 0, __ATOMIC_ACQ_REL))
		tly_tgpu_free(&tg.g);
}
