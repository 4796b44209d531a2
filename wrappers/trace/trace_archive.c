/*
 * trace_archive.c - the job's OTF2 archive: <file>.trace/traces.otf2 next
 * to the .h5.  Opened when the job starts (MPI_Init, collective over the
 * tool's communicator with OTF2's PMPI collectives; at load for a program
 * without MPI, with OTF2's serial ones).  OTF2 writes its files by name:
 * the names it gets go through the descriptor of a private directory
 * Tally made and checked in the output directory (output/out_stage.c),
 * so no name a neighbour can swap there redirects a file; the archive is
 * moved into place whole when it is closed (tly_trace_publish), never
 * replacing anything (`<base>.1.trace` when `<base>.trace` is taken).
 *
 * Memory: OTF2 asks our allocator for its buffers' chunks; a location
 * that holds TALLY_TRACE_BUFFER bytes gets none, which makes OTF2 flush
 * the location's buffer to its file and free the chunks (memory
 * callbacks, the flush callback answering OTF2_FLUSH): memory stays
 * within the buffer per location however long the run.
 */
#include "trace/trace.h"

#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define OTF2_MPI_USE_PMPI
#include <otf2/OTF2_MPI_Collectives.h>
#include <otf2/OTF2_Pthread_Locks.h>

#include "output/output.h"
#include "regions/regions.h"
#include "runtime/rt_parts.h"
#include "tally_shared.h"
#include "trace/trace_gpu.h"
#include "trace/trace_state.h"

/* ---- memory: chunks per buffer, bounded for event buffers ---- */
struct chunks {
	size_t n;
	void *p[];
};

static void *chunk_alloc(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **pbd, uint64_t size)
{
	struct tly_trace_state *tr = tly_trace();
	struct chunks *c = *pbd;
	size_t limit = (size_t)(tr->opt.buffer / (int64_t)size);
	void *m;

	(void)ud;
	(void)loc;
	if (ft == OTF2_FILETYPE_EVENTS && c && c->n >= (limit > 2 ? limit : 2))
		return NULL;   /* full: OTF2 flushes this buffer and frees its chunks */
	if (!c || (c->n & (c->n - 1)) == 0) {   /* room for the pointers: powers of two */
		size_t cap = c && c->n ? 2 * c->n : 4;
		struct chunks *g = realloc(c, sizeof *c + cap * sizeof(void *));

		if (!g)
			return NULL;
		if (!c)
			g->n = 0;
		*pbd = c = g;
	}
	m = malloc(size);
	if (m)
		c->p[c->n++] = m;
	return m;
}

static void chunk_free_all(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void **pbd, bool final)
{
	struct chunks *c = *pbd;

	(void)ud;
	(void)ft;
	(void)loc;
	for (size_t i = 0; c && i < c->n; i++)
		free(c->p[i]);
	if (c)
		c->n = 0;
	if (final) {
		free(c);
		*pbd = NULL;
	}
}

static const OTF2_MemoryCallbacks mem_cb = { .otf2_allocate = chunk_alloc, .otf2_free_all = chunk_free_all };

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc, void *cd, bool final)
{
	(void)ud;
	(void)ft;
	(void)loc;
	(void)cd;
	(void)final;
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef loc)
{
	(void)ud;
	(void)ft;
	(void)loc;
	return (OTF2_TimeStamp)tly_rt_now();
}

static const OTF2_FlushCallbacks flush_cb = { .otf2_pre_flush = pre_flush, .otf2_post_flush = post_flush };

/* ---- settings ---- */
/* TALLY_TRACE_KINDS: its words (any case) as TLY_TK_* bits and as
 * written; a word that is no kind is said once per job and left out.  Empty: every kind. */
static void read_kinds(struct tly_trace_opts *o, const char *list)
{
	static const char *const words[] = { "user", "mpi", "openmp", "nvtx", "gpu" };
	size_t at = 0;

	o->kinds = *list ? 0 : TLY_TK_ALL;
	while (*list) {
		size_t n = strcspn(list, ",");
		size_t k = 0;

		while (k < sizeof words / sizeof words[0] && (strlen(words[k]) != n || strncasecmp(words[k], list, n)))
			k++;
		if (k < sizeof words / sizeof words[0])
			o->kinds |= 1u << k;
		else if (n)
			tly_rt_log_job(1, "TALLY_TRACE_KINDS: '%.*s' is not a kind of record (" TLY_TRACE_KIND_WORDS
				       "); left out of the list", (int)n, list);
		list += n + (list[n] == ',');
	}
	for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
		if (o->kinds & (1u << k))
			at += (size_t)snprintf(o->kinds_text + at, sizeof o->kinds_text - at, "%s%s", at ? "," : "",
					       words[k]);
}

static void read_opts(struct tly_trace_opts *o, const struct tly_rt_cfg *raw)
{
	long long v;

	o->buffer = tly_parse_num(raw->trace_buffer, 1, 1LL << 30, &v) == 0 ? v : 4 << 20;
	if (o->buffer < 2 * (int64_t)OTF2_CHUNK_SIZE_MIN)   /* two of OTF2's smallest chunks */
		o->buffer = 2 * (int64_t)OTF2_CHUNK_SIZE_MIN;
	o->max_events = tly_parse_num(raw->trace_max_events, 0, 1000000000000LL, &v) == 0 ? v : 0;
	o->max_depth = tly_parse_num(raw->trace_max_depth, 0, 999999, &v) == 0 ? (int)v : 0;
	o->min_ns = tly_parse_num(raw->trace_min_ns, 0, 1000000000000LL, &v) == 0 ? v : 0;
	o->exclude = raw->trace_exclude;
	read_kinds(o, raw->trace_kinds);
	o->counters = tly_parse_bool(raw->trace_counters) == 1;
	o->lose_thread = tly_parse_num(raw->trace_test_lose, 0, 1 << TLY_TRACE_TSHIFT, &v) == 0 ? (int)v - 1 : -1;
}

/* The archive's name, <base>.trace (<base>.rank<N>.trace for each
 * process of a job without MPI), and rank 0's private directory for it
 * (output/out_stage.c: made and checked in the output directory, never
 * one someone else made or swapped in); its files are made through the
 * directory's descriptor, the whole moved into place at the end. */
static int make_dir(char *dir, size_t len, const char *outname, int rank_tag)
{
	struct tly_trace_state *tr = tly_trace();
	size_t n = strlen(outname);
	char sfx[48] = "";

	if (n > 3 && !strcmp(outname + n - 3, ".h5"))
		n -= 3;
	if (rank_tag >= 0)
		snprintf(sfx, sizeof sfx, ".rank%05d", rank_tag);
	if ((size_t)snprintf(dir, len, "%.*s%s.trace", (int)n, outname, sfx) >= len)
		return -ENAMETOOLONG;
	return tly_out_stage_mkdir(&tr->stage, dir);
}

/* Every rank: the private directory rank 0 made (its name and inode
 * broadcast; renamed meanwhile by a neighbour, its new name read from
 * rank 0's descriptor and tried again), then the name OTF2 opens it by.
 * All ranks agree before OTF2 is opened (its opening is collective). */
static int join_dir(void *comm_ptr, int e)
{
	struct tly_trace_state *tr = tly_trace();
	struct {
		int e;
		char priv[256];
		unsigned long long ino;
		char id[sizeof tr->id];
	} m = { e, "", 0, "" };
	int je = e, all = 1;

	for (int k = 0; comm_ptr && k < 4; k++) {
		if (tr->rank == 0) {
			if (k && tly_out_stage_current(&tr->stage) != 0)
				m.e = -EXDEV;
			snprintf(m.priv, sizeof m.priv, "%s", tr->stage.priv);
			snprintf(m.id, sizeof m.id, "%s", tr->id);
			m.ino = tr->stage.ino;
		}
		PMPI_Bcast(&m, (int)sizeof m, MPI_BYTE, 0, *(MPI_Comm *)comm_ptr);
		PMPI_Bcast(tr->dir, (int)sizeof tr->dir, MPI_CHAR, 0, *(MPI_Comm *)comm_ptr);
		je = m.e;
		snprintf(tr->id, sizeof tr->id, "%s", m.id);
		if (!je && tr->rank != 0)
			je = tly_out_stage_join(&tr->stage, tr->dir, m.priv, m.ino);
		all = !je;
		PMPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, *(MPI_Comm *)comm_ptr);
		if (all || m.e)
			break;
		if (!je && tr->rank != 0)
			tly_out_stage_close(&tr->stage);
	}
	if (!all && !je)
		je = -EXDEV;   /* another rank could not open the directory */
	if (!je)
		tly_out_stage_dirpath(&tr->stage, tr->otf2, sizeof tr->otf2);
	return je;
}

/* "<output dir>/<private directory>", where an archive not moved into
 * place stays. */
const char *tly_trace_where(char *buf, size_t len)
{
	struct tly_trace_state *tr = tly_trace();

	snprintf(buf, len, "%s/%s", tr->stage.dir, tr->stage.priv);
	return buf;
}

/* Rank 0, the archive closed: moved into place whole, never replacing
 * anything; said once. */
void tly_trace_publish(int closed)
{
	struct tly_trace_state *tr = tly_trace();
	char final[1400], where[1400];
	int rc;

	if (tr->rank != 0) {
		tly_out_stage_close(&tr->stage);
		return;
	}
	rc = tly_out_stage_publish_dir(&tr->stage, tr->dir, final, sizeof final);
	if (rc != 0)   /* where it is now, renamed by someone else or not */
		(void)tly_out_stage_current(&tr->stage);
	tly_trace_where(where, sizeof where);
	if (rc != 0)
		tly_rt_log(1, "the trace archive stays in %s/traces.otf2: it could not be moved to %s (%s)", where,
			   tr->dir, strerror(-rc));
	else if (!closed)
		tly_rt_log(1, "the trace archive %s/traces.otf2 could not be closed", final);
	else
		tly_rt_log(1, "trace written to %s/traces.otf2", final);
	tly_out_stage_close(&tr->stage);
}

static void set_filter_properties(struct tly_trace_state *tr)
{
	char num[32];

	OTF2_Archive_SetProperty(tr->ar, "TALLY::TRACE_KINDS", tr->opt.kinds_text[0] ? tr->opt.kinds_text : "none",
				 true);
	if (tr->opt.exclude[0])
		OTF2_Archive_SetProperty(tr->ar, "TALLY::TRACE_EXCLUDE", tr->opt.exclude, true);
	snprintf(num, sizeof num, "%d", tr->opt.max_depth);
	OTF2_Archive_SetProperty(tr->ar, "TALLY::TRACE_MAX_DEPTH", num, true);
	snprintf(num, sizeof num, "%lld", (long long)tr->opt.min_ns);
	OTF2_Archive_SetProperty(tr->ar, "TALLY::TRACE_MIN_NS", num, true);
}

/* Rank 0: the archive's id, `<pid>-<64 random bits>` (the job file's
 * trace_id attribute says the same: the export pairs a file with its own
 * archive only). */
static void make_id(char *id, size_t len)
{
	unsigned long long r = 0;

	if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		r = (unsigned long long)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (unsigned long long)ts.tv_sec;
	}
	snprintf(id, len, "%ld-%016llx", (long)getpid(), r);
}

/* Rank 0: the id in the archive, as an OTF2 property of its anchor file
 * (TALLY::TRACE_ID) and as the file tally.id beside it (what tally-report
 * reads), made through the private directory's descriptor by the
 * safe-file service.  0, or -1 when the archive carries no id. */
static int write_id(void)
{
	struct tly_trace_state *tr = tly_trace();
	char line[sizeof tr->id + 1];
	int fd, n, ok;

	if (tr->rank != 0)
		return 0;
	(void)OTF2_Archive_SetProperty(tr->ar, "TALLY::TRACE_ID", tr->id, true);
	fd = tly_safe_file_at(tr->stage.privfd, "tally.id", O_WRONLY, 0644, 0);
	if (fd < 0)
		return -1;
	n = snprintf(line, sizeof line, "%s\n", tr->id);
	ok = write(fd, line, (size_t)n) == n;   /* 0644 & ~umask, like the archive's other files */
	return close(fd) == 0 && ok ? 0 : -1;
}

static int open_archive(void)
{
	struct tly_trace_state *tr = tly_trace();
	uint64_t chunk = (uint64_t)tr->opt.buffer / 4;

	chunk = chunk < OTF2_CHUNK_SIZE_MIN ? OTF2_CHUNK_SIZE_MIN : chunk > (1 << 20) ? (1 << 20) : chunk;
	int ok;

	tr->ar = OTF2_Archive_Open(tr->otf2, "traces", OTF2_FILEMODE_WRITE, chunk, OTF2_CHUNK_SIZE_MIN,
				     OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	ok = tr->ar != NULL;
	if (ok && tr->comm)
		ok = OTF2_MPI_Archive_SetCollectiveCallbacks(tr->ar, *(MPI_Comm *)tr->comm, MPI_COMM_NULL)
		     == OTF2_SUCCESS;
	else if (ok)
		ok = OTF2_Archive_SetSerialCollectiveCallbacks(tr->ar) == OTF2_SUCCESS;
	ok = ok && OTF2_Archive_SetFlushCallbacks(tr->ar, &flush_cb, NULL) == OTF2_SUCCESS;
	ok = ok && OTF2_Archive_SetMemoryCallbacks(tr->ar, &mem_cb, NULL) == OTF2_SUCCESS;
	ok = ok && OTF2_Pthread_Archive_SetLockingCallbacks(tr->ar, NULL) == OTF2_SUCCESS;
	ok = ok && OTF2_Archive_SetCreator(tr->ar, "Tally " TALLY_VERSION_STRING) == OTF2_SUCCESS;
	ok = ok && OTF2_Archive_OpenEvtFiles(tr->ar) == OTF2_SUCCESS;
	if (ok)   /* what the trace leaves out, in the anchor file (otf2-print -I) */
		set_filter_properties(tr);
	ok = ok && write_id() == 0;
	return ok ? 0 : -1;
}

/* A fork() child shares the archive's files but not its end: it records
 * nothing (its events would go into its parent's files). */
static void fork_child(void)
{
	struct tly_trace_state *tr = tly_trace();

	__atomic_store_n(&tr->open, 0, __ATOMIC_RELEASE);
	tly_region_follow(NULL);
	if (tr->comm)
		tly_trace_mpi_stop();
}

/* The job starts (rt_parts.h): every rank, together. */
static void job_start(void *comm_ptr)
{
	struct tly_trace_state *tr = tly_trace();
	struct tly_rt_proc *p = tly_rt_proc();
	char name[1024];
	int e = 0, ok;

	if (tly_parse_bool(p->opt.raw.trace) != 1 || tr->ar || p->opt.discard)   /* /dev/null: nothing written */
		return;
	read_opts(&tr->opt, &p->opt.raw);
	tr->comm = comm_ptr;
	tr->rank = comm_ptr ? p->rank : 0;
	tr->nranks = comm_ptr ? p->nranks : 1;
	if (comm_ptr)
		snprintf(name, sizeof name, "%s", p->outname);
	else
		tly_out_choose_name(name, sizeof name, ".h5");
	tr->stage.dirfd = tr->stage.privfd = -1;   /* none yet (a rank that joins none closes none) */
	if (tr->rank == 0) {
		make_id(tr->id, sizeof tr->id);
		e = make_dir(tr->dir, sizeof tr->dir, name, !comm_ptr && p->job.size > 1 ? p->rank : -1);
	}
	e = join_dir(comm_ptr, e);
	ok = !e && open_archive() == 0;
	if (comm_ptr)
		PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, *(MPI_Comm *)comm_ptr);
	if (!ok) {
		if (tr->rank == 0 && e == -EXDEV)
			tly_rt_log(1, "trace not taken: its private directory for %s was replaced by someone else's",
				   tr->dir);
		else if (tr->rank == 0 && e)
			tly_rt_log(1, "trace not taken: cannot make its directory for %s (%s)", tr->dir, strerror(-e));
		else if (tr->rank == 0)
			tly_rt_log(1, "trace not taken: OTF2 cannot open an archive for %s", tr->dir);
		if (tr->rank == 0 && tr->stage.privfd >= 0)
			tly_out_stage_discard(&tr->stage);   /* the private directory, when still empty */
		tly_out_stage_close(&tr->stage);
		return;   /* the archive handle, if any, is left: closing it is collective */
	}
	tr->off0_at = tly_rt_now();
	tr->off0 = tly_trace_clock_offset(comm_ptr);
	pthread_atfork(NULL, NULL, fork_child);
	tly_trace_check_open();
	__atomic_store_n(&tr->open, 1, __ATOMIC_RELEASE);
	tly_region_follow(tly_trace_follow);
	if (comm_ptr && (tr->opt.kinds & TLY_TK_MPI))
		tly_trace_mpi_start();
	if (tr->opt.kinds & TLY_TK_GPU)
		tly_trace_gpu_start();
}

/* A thread's end: its regions close at this time in the trace. */
static void thread_stop(struct tly_rt_thread *t)
{
	struct tly_trace_state *tr = tly_trace();
	int64_t now = tly_rt_now();

	pthread_mutex_lock(&tr->lock);
	for (struct tly_trace_loc *l = tr->locs; l; l = l->next)
		if (l->t == t && !l->stop_ts)
			l->stop_ts = now;
	pthread_mutex_unlock(&tr->lock);
}

const struct tly_rt_part tly_rt_part_trace = {
	.name = "trace",
	.job_start = job_start,
	.thread_stop = thread_stop,
};
