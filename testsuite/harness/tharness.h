/*
 * tharness.h - Tally's tiny test harness.
 *
 *   TH_CHECK(cond)              fail (and continue) when cond is false
 *   TH_EQ(a, b)                 integers equal
 *   TH_NEAR(a, b, rel)          |a-b| <= rel*|b|
 *   TH_SKIP("why")              exit 77 (CTest skip) with a reason
 *   return th_done();           at the end of main: prints a summary, exit code
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

/*
 * perf::TASK-CLOCK against CLOCK_THREAD_CPUTIME_ID when many threads share
 * few cores: the two clocks are sampled at different points of a context
 * switch and were seen to differ by whole scheduler ticks (1-2 ms) on
 * 15-25 ms windows with 9-36 threads on 2 cores, while single-thread tests
 * hold 5%.  Allow 5% or 3 ms: counting the wrong thread or the whole
 * process is still off by far more.
 */
static inline double th_clock_tolerance(double window_ns)
{
	double rel = 0.05 * window_ns;

	return rel > 3e6 ? rel : 3e6;
}

#define TH_NEAR_CLOCK(counted, cpu_ns) \
	TH_NEAR(counted, cpu_ns, th_clock_tolerance((double)(cpu_ns)) / (double)(cpu_ns))

#define TH_SKIP(why) \
	do { printf("SKIP: %s\n", why); exit(77); } while (0)

static inline int th_done(void)
{
	printf("%d checks, %d failed\n", th_checks, th_failures);
	return th_failures ? 1 : 0;
}

#endif /* TALLY_THARNESS_H */
