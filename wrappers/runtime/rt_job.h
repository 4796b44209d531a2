/*
 * rt_job.h - the job of a process without MPI (rt_job.c) and the exit
 * paths (rt_exit.c).
 */
#ifndef TALLY_RT_JOB_H
#define TALLY_RT_JOB_H

#include <setjmp.h>
#include <stdatomic.h>
#include <stddef.h>

#include "output/out_records.h"

/* ---- the job of a process without MPI (runtime/rt_job.c) -------------- */
/* struct tly_rt_job: output/out_records.h, in the process record. */
/* Rank, size and identity from RANK/WORLD_SIZE, OMPI_COMM_WORLD_*,
 * PMIX_RANK, PMI_RANK/PMI_SIZE, SLURM_PROCID/SLURM_NTASKS; 1 when found. */
int tly_rt_job_env(struct tly_rt_job *j);
/* The directory of per-process pieces beside the job file `final`. */
void tly_rt_job_dir(const char *final, const struct tly_rt_job *j, char *buf, size_t len);
int tly_rt_job_pieces(const char *dir);              /* pieces present, -1: no dir */
int tly_rt_job_claim_merge(const char *dir, int size); /* 1: this process merges */
void tly_rt_job_clean(const char *dir);
/* Start time of pid in clock ticks since boot (/proc/<pid>/stat), 0: unknown. */
unsigned long long tly_rt_start_ticks(long pid);
/* rt_job_dir.c: pieces and markers of an earlier job (written before this
 * process started) moved aside as stale-*, said; how many. */
/* Pieces written before `since` (clock ticks since boot) are an earlier
 * job's: moved aside as stale-*, never merged; how many. */
int tly_rt_job_sweep(const char *dir, unsigned long long since);
/* Start time (ticks since boot) of this rank's first process below the
 * launcher: the wrapper script that runs the program, or the program. */
unsigned long long tly_rt_job_top_start(const struct tly_rt_job *j);
/* The piece `own` (a name in dir) becomes rank<r>.h5 unless another
 * process has that name: 0 placed, 1 taken (the directory is marked
 * ambiguous, `own` stays), -1 error (`own` stays). */
int tly_rt_job_place(const char *dir, const char *own, int rank);
/* 1 when pieces of two jobs met in dir: nothing of it is merged. */
int tly_rt_job_is_ambiguous(const char *dir);
/* 1 when the program itself (not the preload) needs libmpi. */
int tly_rt_program_links_mpi(void);

/* ---- exit paths (runtime/rt_exit.c) ----------------------------------- */
void tly_rt_exit_install(void);
void tly_rt_write_partial(const char *why);
/* MPI_Finalize's job file is one write among the exit paths': begin
 * returns 0 when it may write (-1: a partial file was written instead);
 * end, after a write that worked (`ok`), ends the process when a signal
 * came during it; after one that failed the partial file comes next. */
int tly_rt_final_begin(void);
void tly_rt_final_end(int ok);

/* ---- signals (runtime/rt_signal.c) ------------------------------------ */
/* Takes SIGTERM (and SIGINT, unless a Python interpreter is in the
 * process) where they are at SIG_DFL: the handler wakes a thread of
 * Tally's that calls `write` on another thread, waits at most `timeout`
 * seconds (0: no limit; then `late` says what became of the file, 1 when
 * it went into place just then), then ends the process with the signal. */
void tly_rt_signals_install(void (*write)(const char *why), int (*late)(int sig, int secs), int timeout);
int tly_rt_signal_caught(void);      /* the signal taken, 0: none (async-signal-safe) */
/* The same, read inline by tly_rt_self() (rt.h) on every wrapper's way in:
 * written once, by the handler (an atomic store is async-signal-safe). */
extern atomic_int tly_rt_dying;
/* An application thread that enters Tally while the partial file is being
 * written waits here for the end (so the file holds the state at the
 * signal, give or take the calls already inside Tally); Tally's own
 * threads pass. */
void tly_rt_safe_point(void);
/* ---- the program's view of its signals (runtime/rt_sigview.c) -------- */
struct sigaction;
/* Installs `handler` for sig (SIGTERM or SIGINT) when sig is at SIG_DFL;
 * the program keeps seeing SIG_DFL; 1 when installed. */
int tly_rt_sig_take(int sig, void (*handler)(int));
/* sig back to SIG_DFL in the kernel (async-signal-safe). */
void tly_rt_sig_default(int sig);
/* The C library's sigaction, for Tally's own handlers. */
int tly_rt_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* Ends the process by `sig`'s default action (exit status: the signal's). */
void tly_rt_die(int sig) __attribute__((noreturn));
/* The watchdog over the job's end (MPI_Finalize: the collective write and
 * PMPI_Finalize itself).  Armed with the caller's jump buffer: after
 * TALLY_EXIT_TIMEOUT seconds the watchdog jumps back there (sigsetjmp
 * returns 1) so MPI_Finalize returns to the application, which then ends
 * with its own exit status (the runtime makes sure nothing stuck in MPI or
 * HDF5 holds the exit up). */
void tly_rt_guard_arm(sigjmp_buf *jb);
void tly_rt_guard_disarm(void);
void tly_rt_guard_abandoned(void);   /* after sigsetjmp returned 1 */

#endif /* TALLY_RT_JOB_H */
