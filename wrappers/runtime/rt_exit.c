/*
 * rt_exit.c - nothing lost at the end: exit() and signals.
 *
 * SIGTERM/SIGINT left at their default action are taken by rt_signal.c,
 * whose handler only wakes a thread of Tally's; that thread has this
 * file write the rank's partial file (signal_write) and then ends the
 * process with the signal, so it dies exactly as it would have.  exit()
 * writes the serial file or a rank's partial file on the exiting thread,
 * under a watchdog (SIGALRM after TALLY_EXIT_TIMEOUT seconds) that ends
 * the process the way it was ending if the writer gets stuck.  One write
 * at a time (exit_state.writing): a signal that arrives during another write
 * waits for it, then ends the process.
 */
#include "runtime/rt.h"
#include "runtime/rt_helper.h"
#include "runtime/rt_writer.h"
#include "tally_shared.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static struct {
	atomic_int writing;        /* a final write has begun */
	atomic_int written;        /* ... and has ended */
	volatile sig_atomic_t exit_status;
	sigjmp_buf *volatile guard;  /* MPI_Finalize's, while it runs */
	volatile sig_atomic_t abandoned;
	atomic_int said;           /* the end's one line about the file is out */
	volatile pid_t tid;        /* the thread the watchdog was armed on: the writer's */
} exit_state;

/* A signal that arrived while the file was being written (mpirun sends
 * SIGTERM to the ranks still running when one of them exits) waits until
 * the file is complete, then ends the process as it says. */
static void deliver_deferred(void)
{
	int sig = tly_rt_signal_caught();

	atomic_store(&exit_state.written, 1);
	if (sig)
		tly_rt_die(sig);
}

/* Async-signal-safe: one line on stderr without stdio, saying what became
 * of the file the exit() deadline found: taken unfinished, left in its
 * private directory, put in place just before (the watchdog ran on the
 * writer's thread after its rename: the writer never says it), or none. */
static void say_abandoned_raw(void)
{
	char where[1400];
	int rc = tly_rt_writers[0]->abandon(where, sizeof where);
	const char *head = "tally: the process's end took longer than TALLY_EXIT_TIMEOUT; ";
	const char *what = rc == 1 ? "the file it was writing is left unfinished as "
			   : rc < 0 ? "the file it was writing stays, unfinished, in "
			   : rc == 2 ? "the file it was writing is complete, in place as "
			   : "no measurement file was written";

	if (rc == 3 || atomic_exchange(&exit_state.said, 1))
		return;   /* said by the signal's deadline, or by the writer */
	if (write(2, head, strlen(head)) < 0 || write(2, what, strlen(what)) < 0 || write(2, where, strlen(where)) < 0
	    || write(2, "\n", 1) < 0)
		return;
}

/* Async-signal-safe: what it calls (siglongjmp, sigaction, raise, _exit,
 * the writer's abandon: system calls) may be called from a handler. */
static void watchdog(int sig)
{
	sigjmp_buf *jb = exit_state.guard;
	int dying = tly_rt_signal_caught();
	pid_t tid = exit_state.tid;

	if (tid > 0 && (pid_t)syscall(SYS_gettid) != tid && syscall(SYS_tgkill, getpid(), tid, sig) == 0)
		return;   /* alarm() is the process's: the deadline acts on the writer's thread */
	if (jb && !dying) {
		exit_state.guard = NULL;
		exit_state.abandoned = 1;
		siglongjmp(*jb, 1);
	}
	say_abandoned_raw();
	if (dying)
		tly_rt_die(dying);
	_exit(exit_state.exit_status);
}

static void arm_watchdog(void)
{
	int secs = tly_rt_proc()->opt.exit_timeout;

	if (secs > 0 && !exit_state.guard) {   /* the job's end has one deadline, not two */
		exit_state.tid = (pid_t)syscall(SYS_gettid);
		signal(SIGALRM, watchdog);
		alarm((unsigned)secs);
	}
}

/* The job directory, made 0700 by the first process (the pieces are this
 * user's until merged); one already there is used only when it is a real
 * directory of this user that nobody else may write to, never a link:
 * checked on the descriptor the safe-file service opened after the mkdir,
 * never by the name (which a neighbour who can write the output directory
 * may swap between the two).  What it holds is kept in `made`; its
 * descriptor is returned (-1 when not to be used). */
static int job_dir_make(const char *dir, struct stat *made)
{
	int fd = tly_safe_own_dir(dir, 022);

	if (fd == -EPERM) {
		tly_rt_log(1, "the job directory %s is not a directory of this user closed to others; "
			   "no measurement file written", dir);
		return -1;
	}
	if (fd < 0 || fstat(fd, made) != 0) {
		tly_rt_log(1, "cannot create the job directory %s: %s; no measurement file written", dir,
			   strerror(fd < 0 ? -fd : errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* 1 when the job directory's name still holds the directory made. */
static int job_dir_same(const char *dir, const struct stat *made)
{
	struct stat st;
	int fd = tly_safe_open_dir(dir);
	int same = fd >= 0 && fstat(fd, &st) == 0 && st.st_ino == made->st_ino && st.st_dev == made->st_dev;

	if (fd >= 0)
		close(fd);
	return same;
}

/* The piece written under its own name `own` in the job directory (`dir`
 * by name for messages, `at` for the work) becomes rank<r>.h5
 * (rt_job_dir.c); 0 when placed and no other job's pieces met this
 * one's, else said. */
static int place_piece(const struct tly_rt_proc *p, const char *dir, const char *at, const char *own)
{
	int placed = tly_rt_job_place(at, own, p->rank);
	char name[32];

	if (placed < 0) {
		tly_rt_log(1, "cannot name the piece of rank %d %s/rank%05d.h5 (%s); it stays as %s/%s and is "
			   "not merged", p->rank, dir, p->rank, strerror(errno), dir, own);
		return -1;
	}
	snprintf(name, sizeof name, "rank%05d.h5", p->rank);
	if (placed > 0 || tly_rt_job_is_ambiguous(at)) {
		tly_rt_log(1, "two processes claim rank %d of the job %s: jobs that one process starts with the same "
			   "RANK and WORLD_SIZE cannot be told apart (start each from a subshell or script of its own, "
			   "or give it TORCHELASTIC_RUN_ID); nothing in %s is merged, this piece is %s/%s", p->rank,
			   p->job.id, dir, dir, placed > 0 ? own : name);
		return -1;
	}
	return 0;
}

/* After this process's piece is in place: the one whose piece completes
 * the set merges them into the job file (the pieces read through `at`). */
static void merge_pieces(struct tly_rt_proc *p, const char *dir, const char *at, char *path, size_t len)
{
	if (!tly_rt_job_claim_merge(at, p->job.size)) {
		/* the job's first process says where the pieces wait: a job
		 * whose other processes never come still says so */
		tly_rt_log(p->rank == 0 ? 1 : 2, "the piece of rank %d of %d is in %s; the process that completes "
			   "the set merges them (tally-report %s reads them meanwhile)", p->rank, p->job.size, dir, dir);
		return;
	}
	if (tly_rt_writers[0]->merge(at, p->job.size, path, len) == 0) {
		tly_rt_job_clean(dir);
		tly_rt_log(1, "measurement of %d processes (ranks from %s) written to %s", p->job.size,
			   p->job.launcher, path);
	} else {
		tly_rt_log(1, "the pieces of the job could not be merged; they stay in %s (tally-report %s "
			   "reads them)", dir, dir);
	}
}

/* A process of a job without MPI (rt_job.c) writes its piece into the
 * job directory; the one whose piece completes the set merges them into
 * the job file.  Everything after the check works through the checked
 * descriptor (/proc/self/fd/N, the safe-file service's own; by name only
 * without /proc): a name swapped after the check (a link, a directory of
 * another) never receives a piece nor gives one.  0 when the piece is
 * written. */
static int write_piece(struct tly_rt_proc *p, int partial)
{
	char path[1024], dir[1200], piece[1300], at[1200];
	struct stat made;
	const char *own;
	int jfd, rc = -1;

	tly_rt_writers[0]->choose_name(path, sizeof path, ".h5");
	tly_rt_job_dir(path, &p->job, dir, sizeof dir);
	if ((jfd = job_dir_make(dir, &made)) < 0)
		return -1;
	snprintf(at, sizeof at, "/proc/self/fd/%d", jfd);
	if (access(at, F_OK) != 0)
		snprintf(at, sizeof at, "%s", dir);   /* no /proc: by name */
	tly_rt_job_sweep(at, tly_rt_job_top_start(&p->job));
	snprintf(piece, sizeof piece, "%s/p%ld-rank%05d.h5", at, (long)getpid(), p->rank);
	if (tly_rt_writers[0]->write(piece, sizeof piece, partial) != 0)
		goto out;
	own = strrchr(piece, '/') + 1;   /* the name really written */
	if (!job_dir_same(dir, &made)) {
		tly_rt_log(1, "the job directory %s was renamed or replaced by someone else; the piece of rank %d "
			   "is in the directory under its new name, and no job file is written", dir, p->rank);
		goto out;
	}
	rc = 0;
	if (place_piece(p, dir, at, own) == 0)
		merge_pieces(p, dir, at, path, sizeof path);
out:
	close(jfd);
	return rc;
}

/* 1 when another write is under way (nothing done), else 0.  `watch`:
 * under the SIGALRM watchdog (the signal thread keeps its own time). */
static int write_partial(const char *why, int watch)
{
	struct tly_rt_proc *p = tly_rt_proc();
	char path[1100];
	int expected = 0;

	if (!p->active || p->finished)
		return 0;
	if (!atomic_compare_exchange_strong(&exit_state.writing, &expected, 1))
		return 1;
	if (watch)
		arm_watchdog();
	snprintf(p->why, sizeof p->why, "%s", why);
	tly_rt_stop_all();
	if (!p->in_mpi_job && p->job.size > 1 && !p->opt.discard) {
		if (!tly_rt_helper_skip(p, tly_rt_now()) && write_piece(p, 1) == 0)
			tly_rt_log(1, "%s: partial data of rank %d written", why, p->rank);
		p->finished = 1;
		if (watch)
			alarm(0);
		deliver_deferred();
		return 0;
	}
	if (p->in_mpi_job) {
		size_t n = strlen(p->outname);

		if (n > 3 && !strcmp(p->outname + n - 3, ".h5"))
			n -= 3;
		snprintf(path, sizeof path, "%.*s.rank%05d.partial.h5", (int)n, p->outname, p->rank);
	} else {
		tly_rt_writers[0]->choose_name(path, sizeof path, ".partial.h5");
	}
	if (p->opt.discard)   /* --output-name=/dev/null: measured, nothing written */
		tly_rt_log(p->rank == 0 ? 1 : 2, "%s: the data of rank %d discarded (the output is the null device)",
			   why, p->rank);
	else if (tly_rt_writers[0]->write(path, sizeof path, 1) == 0) {
		if (watch && !exit_state.guard)
			alarm(0);   /* a watchdog after this would say it again */
		if (!watch || !atomic_exchange(&exit_state.said, 1))
			tly_rt_log(1, "%s: partial data written to %s", why, path);
	}
	p->finished = 1;
	if (watch && !exit_state.guard)
		alarm(0);
	deliver_deferred();
	return 0;
}

void tly_rt_write_partial(const char *why)
{
	write_partial(why, 1);
}

/* On the signal thread's writer (rt_signal.c): the partial file, or, when
 * another write is under way (exit(), MPI_Finalize), its end: that writer
 * ends the process with the signal when done. */
static void signal_write(const char *why)
{
	struct timespec tick = { 0, 10000000 };

	while (write_partial(why, 0))
		nanosleep(&tick, NULL);
}

/* The signal thread's deadline passed (rt_signal.c): the write under way
 * is taken from the writer and said, once. */
static int signal_late(int sig, int secs)
{
	char where[1400];
	int rc = tly_rt_writers[0]->abandon(where, sizeof where);

	if (rc == 2)
		return 1;   /* the file went into place just then: said by its writer */
	if (rc == 3)
		return 0;   /* taken by the exit() deadline, which said so */
	if (rc == 1)
		tly_rt_log(1, "%s: the partial file was not complete after TALLY_EXIT_TIMEOUT=%d s; what it holds is "
			   "left, unfinished, as %s; the process ends as the signal says", strsignal(sig), secs, where);
	else if (rc < 0)
		tly_rt_log(1, "%s: the partial file was not complete after TALLY_EXIT_TIMEOUT=%d s; it stays, "
			   "unfinished, in %s (%s); the process ends as the signal says", strsignal(sig), secs, where,
			   strerror(-rc));
	else
		tly_rt_log(1, "%s: no partial file was begun within TALLY_EXIT_TIMEOUT=%d s; the process ends as "
			   "the signal says without one", strsignal(sig), secs);
	return 0;
}

/* While the signal's writer is at work, an exiting thread waits: the
 * writer ends the process with the signal.  Also a destructor of the
 * preload: a preloaded library's on_exit handler runs after _dl_fini
 * (registered by __libc_start_main, after the preload's constructors
 * ran), which has already run HDF5's and the core's clean-up; the
 * preload's destructor runs before those of the libraries it needs. */
static void wait_for_signal_writer(void)
{
	if (tly_rt_signal_caught() && !atomic_load(&exit_state.written) && (long)getpid() == tly_rt_proc()->pid)
		for (;;)
			pause();
}

__attribute__((destructor)) static void at_unload(void)
{
	wait_for_signal_writer();
}

static void at_exit(int status, void *arg)
{
	struct tly_rt_proc *p = tly_rt_proc();
	char path[1024];
	int expected = 0;

	(void)arg;
	exit_state.exit_status = status;
	if ((long)getpid() != p->pid)
		return;    /* a fork() child: it never writes */
	wait_for_signal_writer();
	if (!p->active || p->finished)
		return;
	if (p->in_mpi_job) {
		tly_rt_write_partial("exit() without MPI_Finalize");
		return;
	}
	if (!p->opt.serial || !atomic_compare_exchange_strong(&exit_state.writing, &expected, 1))
		return;
	arm_watchdog();
	tly_rt_stop_all();
	if (tly_rt_helper_skip(p, tly_rt_now())) {
		/* a wrapper script's helper command: not a rank (rt_helper.c) */
	} else if (p->opt.discard) {   /* --output-name=/dev/null */
		tly_rt_log(p->rank == 0 ? 1 : 2, "measurement taken and discarded: the output is the null device, "
			   "nothing written");
	} else if (p->job.size > 1) {
		write_piece(p, 0);
	} else {
		tly_rt_writers[0]->choose_name(path, sizeof path, ".h5");
		if (tly_rt_writers[0]->write(path, sizeof path, 0) == 0) {
			alarm(0);   /* a watchdog after this would say it again */
			if (!atomic_exchange(&exit_state.said, 1))
				tly_rt_log(1, "measurement written to %s", path);
		}
	}
	p->finished = 1;
	alarm(0);
	deliver_deferred();
}

void tly_rt_guard_arm(sigjmp_buf *jb)
{
	int secs = tly_rt_proc()->opt.exit_timeout;

	if (secs <= 0)
		return;
	exit_state.tid = (pid_t)syscall(SYS_gettid);
	signal(SIGALRM, watchdog);
	exit_state.guard = jb;
	alarm((unsigned)secs);
}

void tly_rt_guard_disarm(void)
{
	if (!exit_state.guard)
		return;
	exit_state.guard = NULL;
	alarm(0);
}

/* Registered after MPI and HDF5 registered theirs, so it runs first at
 * exit: their handlers may wait on what the abandoned write holds. */
static void exit_now(int status, void *arg)
{
	(void)arg;
	_exit(status);
}

void tly_rt_guard_abandoned(void)
{
	char where[1400], left[1500] = "";
	int rc = tly_rt_writers[0]->abandon(where, sizeof where);

	if (rc == 1 || rc < 0)
		snprintf(left, sizeof left, "; what it holds is left, unfinished, %s %s", rc == 1 ? "as" : "in", where);
	tly_rt_log(1, "the job's end took longer than TALLY_EXIT_TIMEOUT=%d s (the measurement file is not "
		   "complete%s); MPI_Finalize returns so the application ends with its own exit status",
		   tly_rt_proc()->opt.exit_timeout, left);
	tly_rt_proc()->finished = 1;
	on_exit(exit_now, NULL);
}

void tly_rt_exit_install(void)
{
	on_exit(at_exit, NULL);
	if (!tly_rt_proc()->opt.signals)
		return;
	tly_rt_signals_install(signal_write, signal_late, tly_rt_proc()->opt.exit_timeout);
}

int tly_rt_final_begin(void)
{
	struct timespec tick = { 0, 10000000 };
	int expected = 0;

	while (!atomic_compare_exchange_strong(&exit_state.writing, &expected, 1)) {
		if (atomic_load(&exit_state.written))
			return -1;
		expected = 0;
		nanosleep(&tick, NULL);   /* a signal's partial file: it ends the process */
	}
	return 0;
}

void tly_rt_final_end(int ok)
{
	if (ok && tly_rt_signal_caught()) {
		atomic_store(&exit_state.written, 1);
		tly_rt_die(tly_rt_signal_caught());   /* the job file is complete: end as the signal says */
	}
	atomic_store(&exit_state.writing, 0);
}
