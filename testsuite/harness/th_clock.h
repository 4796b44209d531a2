/*
 * th_clock.h - clock readings for the harness's clock checks (th_clock.c).
 *
 * perf::TASK-CLOCK counts the wall time a thread spends on
 * a CPU; CLOCK_THREAD_CPUTIME_ID leaves out what the kernel books
 * elsewhere while the thread runs (hypervisor steal with paravirt steal
 * accounting, interrupt time).  So over one window, physically:
 *
 *   thread CPU time - switches x gap  <=  task-clock  <=  wall time - run-queue wait
 *
 * (gap: the part of a context switch booked to the incoming thread's CPU
 * time before perf starts its task-clock, TH_SWITCH_GAP_NS in tharness.h)
 *
 * (a user-domain task-clock may leave out some kernel time, page faults:
 * the lower bounds keep a few percent of slack for it)
 *
 * The right-hand side is the thread's own: CLOCK_MONOTONIC minus the
 * run_delay of /proc/thread-self/schedstat.  Its excess over the CPU
 * time ("extra") is what this very thread lost to steal, interrupts or
 * blocking in the window; it is measured, never a machine-wide guess.
 */
#ifndef TALLY_TH_CLOCK_H
#define TALLY_TH_CLOCK_H

struct th_clock {
	long long cpu;   /* CLOCK_THREAD_CPUTIME_ID, ns */
	long long wall;  /* CLOCK_MONOTONIC, ns */
	long long delay; /* run-queue wait so far (schedstat), ns; -1 unknown */
};

/* CLOCK_MONOTONIC now, in seconds and in nanoseconds (the tests' and
 * benchmarks' wall clock). */
double th_now_s(void);
double th_now_ns(void);
/* Per-item costs of a benchmark: since th_own_begin, the calling thread's
 * wall time less its run-queue wait (what it ran or blocked itself, not
 * what other processes ran meanwhile), ns; the wall time without
 * schedstat.  th_own_begin returns the opening reading. */
struct th_clock th_own_begin(void);
double th_own_ns(const struct th_clock *since);
/* The calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), ns. */
long long th_thread_cpu_ns(void);
/* Busy the calling thread until it has used ns more of its CPU time. */
void th_spin_cpu_ns(long long ns);
/* A fixed amount of floating-point work (n rounds, whatever the time it
 * takes); the result, for the caller to keep so the work is done. */
double th_spin_rounds(long n);
/* The calling thread's clocks now, read to open a window (the wall
 * clock first, th_clock.c says why). */
struct th_clock th_clock_now(void);
/* The calling thread's time since `since` that was neither CPU time nor
 * run-queue wait (>= 0); 0 without schedstat (the check stays strict). */
long long th_clock_extra_ns(const struct th_clock *since);
/* Open the calling thread's window for TH_NEAR_CLOCK: call it where the
 * measured window starts, in the thread that checks it. */
void th_clock_begin(void);
/* Extra time of the calling thread since its th_clock_begin; 0 when it
 * never called it: then only the CPU time counts. */
double th_clock_allowance_ns(void);

#endif /* TALLY_TH_CLOCK_H */
