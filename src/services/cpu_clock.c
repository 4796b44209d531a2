/*
 * cpu_clock.c - the cycle counter and its rate (cpu_clock.h); moved from
 * core/timers.c: the runtime's clock uses the rate too.
 */
#include "services/cpu_clock.h"

#include <pthread.h>
#include <time.h>

/*
 * The only mutable state is the cycle-counter rate, computed once; the
 * pthread_once guard costs one load on the paths that need the rate and
 * nothing on the others.
 */
static struct {
	pthread_once_t once;
	double mhz;        /* cycle-counter rate */
	long long hz;      /* same, cycles per second, for integer scaling */
} timer_state = { .once = PTHREAD_ONCE_INIT };

static long long clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		return 0;
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#if defined(__x86_64__)
static inline long long read_counter(void)
{
	unsigned int lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return (long long)(((unsigned long long)hi << 32) | lo);
}

/*
 * One (tsc, ns) pair: the clock read bracketed by two TSC reads, keeping
 * the tightest of a few tries so a preemption in between cannot skew it.
 */
static void tsc_sample(long long *tsc, long long *ns)
{
	long long best = -1;

	for (int i = 0; i < 7; i++) {
		long long t0 = read_counter();
		long long n = clock_ns(CLOCK_MONOTONIC);
		long long t1 = read_counter();

		if (best < 0 || t1 - t0 < best) {
			best = t1 - t0;
			*tsc = t0 + (t1 - t0) / 2;
			*ns = n;
		}
	}
}

/* The TSC rate is not exposed reliably (VMs lie in cpuid 0x15): measure it. */
static double counter_mhz(void)
{
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	long long t0, n0, t1, n1;

	tsc_sample(&t0, &n0);
	while (nanosleep(&nap, &nap) != 0)
		;
	tsc_sample(&t1, &n1);
	if (n1 <= n0 || t1 <= t0)
		return 1000.0;
	return (double)(t1 - t0) * 1000.0 / (double)(n1 - n0);
}
#elif defined(__aarch64__)
static inline long long read_counter(void)
{
	unsigned long long v;

	/* isb keeps the read from being hoisted above earlier instructions. */
	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return (long long)v;
}

static double counter_mhz(void)
{
	unsigned long long f;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
	return f ? (double)f / 1e6 : 1000.0;
}
#else
/* No known user-readable counter: one "cycle" per nanosecond. */
static inline long long read_counter(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static double counter_mhz(void)
{
	return 1000.0;
}
#endif

static void calibrate(void)
{
	timer_state.mhz = counter_mhz();
	timer_state.hz = (long long)(timer_state.mhz * 1e6 + 0.5);
}

double tly_cyc_mhz(void)
{
	pthread_once(&timer_state.once, calibrate);
	return timer_state.mhz;
}

long long tly_real_nsec(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

long long tly_real_cyc(void)
{
	return read_counter();
}

long long tly_virt_nsec(void)
{
	return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

long long tly_virt_cyc(void)
{
	long long ns = tly_virt_nsec();

	pthread_once(&timer_state.once, calibrate);
	/* Split at whole seconds so ns * hz cannot overflow 64 bits. */
	return (ns / 1000000000LL) * timer_state.hz +
	       (ns % 1000000000LL) * timer_state.hz / 1000000000LL;
}
