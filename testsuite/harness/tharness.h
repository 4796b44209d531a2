/*
 * tharness.h - Tally's tiny test harness.
 *
 *   TH_CHECK(cond)              fail (and continue) when cond is false
 *   TH_EQ(a, b)                 integers equal
 *   TH_NEAR(a, b, rel)          |a-b| <= rel*|b|
 *   TH_NEAR_CLOCK(counted, cpu) task-clock ns against thread CPU ns (below)
 *   TH_CLOCK_IN(c, in, out, x)  task-clock ns within physical bounds (below)
 *   TH_SKIP("why")              exit 77 (CTest skip) with a reason: only for
 *                               missing hardware or packages
 *   TH_FATAL("why")             exit 1 now (usage, init, system failures)
 *   return th_done();           at the end of main: prints a summary, exit code
 *                               (1 when a check failed or none was made)
 *
 * Table-driven tests pass the row's __LINE__ to th_at() so failures name it.
 */
#ifndef TALLY_THARNESS_H
#define TALLY_THARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/*
 * Functions whose memory accesses are ground truth (touching N pages must
 * cause exactly N faults) are built without sanitizer instrumentation:
 * ASan/TSan shadow accesses would add faults of their own.
 */
#if defined(__GNUC__)
#define TH_UNINSTRUMENTED __attribute__((no_sanitize("address", "thread", "undefined")))
#else
#define TH_UNINSTRUMENTED
#endif

static int th_failures;
static int th_checks;
static int th_row_line;

static inline void th_at(int line) { th_row_line = line; }

static inline void th_fail(const char *file, int line, const char *what)
{
	th_failures++;
	if (th_row_line)
		fprintf(stderr, "%s:%d: FAILED (table row at line %d): %s\n", file, line, th_row_line, what);
	else
		fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what);
}

#define TH_CHECK(cond) \
	do { th_checks++; if (!(cond)) th_fail(__FILE__, __LINE__, #cond); } while (0)

#define TH_EQ(a, b) \
	do { long long th_a_ = (long long)(a), th_b_ = (long long)(b); th_checks++; \
	     if (th_a_ != th_b_) { char th_m_[512]; \
		snprintf(th_m_, sizeof th_m_, "%s == %s (%lld != %lld)", #a, #b, th_a_, th_b_); \
		th_fail(__FILE__, __LINE__, th_m_); } } while (0)

#define TH_NEAR(a, b, rel) \
	do { double th_a_ = (double)(a), th_b_ = (double)(b); th_checks++; \
	     if (fabs(th_a_ - th_b_) > (rel) * fabs(th_b_)) { char th_m_[512]; \
		snprintf(th_m_, sizeof th_m_, "%s ~ %s within %g (%g vs %g)", #a, #b, (double)(rel), th_a_, th_b_); \
		th_fail(__FILE__, __LINE__, th_m_); } } while (0)

#include "th_clock.h"

/*
 * TH_NEAR_CLOCK(counted, cpu_ns): task-clock ns against the thread CPU
 * time of a window whose ends do not nest exactly with the counting ones
 * (PAPI_start/stop on one side, clock_gettime on the other): within
 * max(5%, 3 ms) below, and as much plus the thread's own extra time since
 * th_clock_begin() above.  Zero, half or double the truth fails.
 */
static inline double th_clock_tolerance(double cpu_ns)
{
	return 0.05 * cpu_ns > 3e6 ? 0.05 * cpu_ns : 3e6;
}

static inline int th_clock_near(double counted, double cpu_ns, double allowance)
{
	double tol = th_clock_tolerance(cpu_ns);

	return counted >= cpu_ns - tol && counted <= cpu_ns + tol + allowance;
}

#define TH_NEAR_CLOCK(counted, cpu_ns) \
	do { double th_c_ = (double)(counted), th_t_ = (double)(cpu_ns), th_x_ = th_clock_allowance_ns(); \
	     th_checks++; if (!th_clock_near(th_c_, th_t_, th_x_)) { char th_m_[512]; \
		snprintf(th_m_, sizeof th_m_, "%s ~ %s: %g not in [%g, %g] (own extra time %g ns)", #counted, \
			 #cpu_ns, th_c_, th_t_ - th_clock_tolerance(th_t_), \
			 th_t_ + th_clock_tolerance(th_t_) + th_x_, th_x_); \
		th_fail(__FILE__, __LINE__, th_m_); } } while (0)

/*
 * TH_CLOCK_IN(counted, inner_ns, outer_ns, extra_ns): one-sided physical
 * bounds for a window the counting nests between: inner_ns is the CPU
 * time inside the counting (a lower bound), outer_ns the CPU time around
 * it and extra_ns the thread's extra time around it (th_clock_extra_ns):
 * inner - slack <= counted <= outer + extra + slack, slack = 3% + 1 ms
 * for the clock reads and for kernel time (page faults) that a
 * user-domain task-clock was seen to leave out: 1.7% of a 64 ms window
 * that touches pages, under a load of 17 on 2 cores.
 */
static inline double th_clock_slack(double ns)
{
	return 0.03 * ns + 1e6;
}

/*
 * What one context switch of a thread may add to its CPU time but not to
 * its task-clock.  The scheduler starts charging the next thread's CPU
 * time when it picks it (exec_start), before the switch; perf starts its
 * task-clock only at perf_event_task_sched_in after the switch, and the
 * previous thread's perf sched-out runs in between: that work is booked
 * to the incoming thread's CPU time, never to its task-clock.  Measured
 * here with the raw perf_event interface in the right order (reset,
 * enable, CPU time, work, CPU time, read, disable), 36 threads with
 * task-clock on 2 cores: task-clock below the in-window CPU time in 93% of
 * 720 windows, by 1.6-1.8 us per switch of the window on average and up to
 * 1.35 ms in a window of about 16 switches (85 us a switch) under a load
 * of 9; threads that run alone (no other perf context to switch from):
 * 0 on average.  100 us a switch covers the worst seen.
 *
 * The same stretch seen from the outgoing thread, at an involuntary
 * switch: its CPU time stops at the pick (update_curr), its task-clock
 * only at perf_event_task_sched_out in the switch, and its run-queue wait
 * (schedstat run_delay) starts at the run-queue clock read when
 * __schedule began.  That stretch is in its task-clock and its wait but
 * not in its CPU time, so the extra time (wall - wait - CPU,
 * th_clock_extra_ns) does not cover it either: a task-clock may exceed
 * CPU + extra by up to the gap per switch (api_thread_stress: 0.8-1.9 ms
 * over 12-13 switches, beyond the 3% + 1 ms slack, in rare loaded runs).
 *
 * Not covered yet (issue 46): at a load of 20-28 on 2 cores (10x the
 * cores), gaps of 250-330 us a switch were seen on the lower side
 * (api_thread_stress: task-clock 4.1 ms below 24.9 ms of CPU over 16
 * switches; region_time_only's "nap": 0.9-1.7 ms below over 5-6 switches
 * in 3 of 30 runs).  This guest reports no steal and 12% of its time in
 * softirq; where that time lands was not pinned down.
 */
#define TH_SWITCH_GAP_NS 100000.0
/* The lower side, until that loss is explained: what a context switch
 * may take from a thread's task-clock against its CPU time on a loaded
 * machine (api_thread_stress in the loaded stage, load ~5 on 2 cores,
 * 2026-11-29: 4.5 ms below over 11 switches, 410 us a switch).  Zero or
 * half the truth still fails at the switch counts seen (5-16). */
#define TH_SWITCH_LOSS_NS 500000.0

#define TH_CLOCK_IN(counted, inner_ns, outer_ns, extra_ns) \
	do { double th_c_ = (double)(counted), th_lo_ = (double)(inner_ns), \
	     th_hi_ = (double)(outer_ns) + (double)(extra_ns); th_checks++; \
	     th_lo_ -= th_clock_slack(th_lo_); th_hi_ += th_clock_slack(th_hi_); \
	     if (!(th_c_ >= th_lo_ && th_c_ <= th_hi_)) { char th_m_[512]; \
		snprintf(th_m_, sizeof th_m_, "%s = %g not in [%g, %g] (CPU time %s, %s + extra %s)", #counted, \
			 th_c_, th_lo_, th_hi_, #inner_ns, #outer_ns, #extra_ns); \
		th_fail(__FILE__, __LINE__, th_m_); } } while (0)

/*
 * TH_FAULTS_IN(counted, touched, outer): page faults of a window against
 * physical bounds: at least the fresh pages the test touched inside the
 * counting (one fault each), at most the faults the kernel booked to the
 * thread over a window around the counting (th_thread_faults() before and
 * after; a sanitizer's shadow and allocator faults in the library's calls
 * are real faults of it) plus 1% + 2.  Zero, half or double the truth
 * fails.
 */
#define TH_FAULTS_IN(counted, touched, outer) \
	do { double th_c_ = (double)(counted), th_lo_ = (double)(touched), th_hi_ = (double)(outer); \
	     th_checks++; th_hi_ += 0.01 * th_hi_ + 2; \
	     if (!(th_c_ >= th_lo_ && th_c_ <= th_hi_)) { char th_m_[512]; \
		snprintf(th_m_, sizeof th_m_, "%s = %g faults not in [%g, %g] (pages touched %s, kernel's count " \
			 "around it %s)", #counted, th_c_, th_lo_, th_hi_, #touched, #outer); \
		th_fail(__FILE__, __LINE__, th_m_); } } while (0)

/* Skip (exit 77) only for what is truly missing here: a GPU, a PMU, a
 * package that cannot be installed; say which. */
#define TH_SKIP(why) \
	do { printf("SKIP: %s\n", why); exit(77); } while (0)

/* Stop with a failure: the test cannot go on (usage error from the CMake
 * wiring, library initialisation failed, the system refused a resource). */
#define TH_FATAL(why) \
	do { fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, why); exit(1); } while (0)

/* A test that made no check proves nothing: it fails. */
static inline int th_done(void)
{
	printf("%d checks, %d failed\n", th_checks, th_failures);
	if (th_checks == 0)
		fprintf(stderr, "FAILED: the test made no check\n");
	return th_failures || th_checks == 0 ? 1 : 0;
}

#endif /* TALLY_THARNESS_H */
