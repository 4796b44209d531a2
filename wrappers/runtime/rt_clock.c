/*
 * rt_clock.c - the runtime's clock: CLOCK_MONOTONIC nanoseconds read from
 * the CPU's counter instead of clock_gettime, which costs 25-45 ns in a VM
 * and is read twice per MPI call and region visit.  The counter is
 * anchored to CLOCK_MONOTONIC once, at start-up.  Its rate: aarch64,
 * CNTFRQ_EL0; x86-64, the kernel's TSC conversion from a perf_event mmap
 * page, or (in VMs, where the kernel does not publish it) the TSC measured
 * against CLOCK_MONOTONIC over the first 50 ms of the run (about 2e-5):
 * the anchor is taken at start-up, the clock is clock_gettime until the
 * first read 50 ms later, which measures the rate and switches to the TSC
 * (continuous: at that read both give the same time).  Start-up itself
 * then waits for nothing (a 10 ms calibration was 10 ms of every
 * process's start, excluded ones included).  The TSC is used
 * only when it is the kernel's clocksource (stable and synchronised across
 * CPUs); otherwise the clock stays clock_gettime.  Durations agree with
 * CLOCK_MONOTONIC to the ppm-level difference of the two rates.
 *
 * State: written once, before the runtime measures anything, by the
 * start-up (which runs under pthread_once); `fast` is published last with
 * release order and read with acquire order.
 */
#include "runtime/rt_clock.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tally_shared.h"   /* tly_perf_open */

struct tly_rt_clock tly_rt_clk;

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#if defined(__x86_64__)
static int tsc_is_clocksource(void)
{
	char s[32] = "";
	int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, s, sizeof s - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n >= 3 && !strncmp(s, "tsc", 3) && (s[3] == '\n' || s[3] == '\0');
}

/* ns per TSC tick as a 32.32 fixed-point factor, from the kernel's own
 * TSC-to-ns conversion (time_mult >> time_shift); 0 when not offered. */
static uint64_t rate_from_kernel(void)
{
	struct perf_event_attr a = { .size = sizeof a, .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_DUMMY, .exclude_kernel = 1, .exclude_hv = 1 };
	long page = sysconf(_SC_PAGESIZE);
	int fd = tly_perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	struct perf_event_mmap_page *pg;
	uint64_t mult = 0;

	if (fd < 0)
		return 0;
	pg = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
	if (pg != MAP_FAILED) {
		if (pg->cap_user_time && pg->time_shift <= 32)
			mult = (uint64_t)pg->time_mult << (32 - pg->time_shift);
		munmap(pg, (size_t)page);
	}
	close(fd);
	return mult;
}

/* 0: no TSC; 1: the TSC, its rate to be measured (rt_clock_calibrate);
 * else the kernel's rate. */
static uint64_t fast_rate(void)
{
	uint64_t mult;

	if (!tsc_is_clocksource())
		return 0;
	if ((mult = rate_from_kernel()) != 0)
		return mult;
	return 1;
}
#elif defined(__aarch64__)
static uint64_t fast_rate(void)
{
	uint64_t f;

	__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
	return f ? (uint64_t)((1000000000ULL << 32) / f) : 0;
}
#else
static uint64_t fast_rate(void)
{
	return 0;
}
#endif

/* A counter value and the clock at the same moment: the pair of seven
 * whose counter reads are closest (a preemption between them is left out). */
static void sample(uint64_t *c, int64_t *ns)
{
	uint64_t best = UINT64_MAX;

	*c = 0;
	*ns = 0;
	for (int i = 0; i < 7; i++) {
		uint64_t a = tly_rt_counter();
		int64_t n = mono_ns();
		uint64_t b = tly_rt_counter();

		if (b - a < best) {
			best = b - a;
			*c = a + (b - a) / 2;
			*ns = n;
		}
	}
}

void tly_rt_clock_init(void)
{
	uint64_t mult = fast_rate();

	if (!mult || __atomic_load_n(&tly_rt_clk.fast, __ATOMIC_ACQUIRE))
		return;
	sample(&tly_rt_clk.c0, &tly_rt_clk.ns0);   /* the anchor */
	if (mult == 1) {   /* measured later, from this anchor */
		tly_rt_clk.due_ns = tly_rt_clk.ns0 + TLY_RT_CAL_NS;
		__atomic_store_n(&tly_rt_clk.pending, 1, __ATOMIC_RELEASE);
		return;
	}
	tly_rt_clk.mult = mult;
	__atomic_store_n(&tly_rt_clk.fast, 1, __ATOMIC_RELEASE);
}

/* One thread measures (pending 1 -> 2), the others keep clock_gettime;
 * the rate is published before `fast`, so a reader that sees `fast` sees
 * the rate.  The anchor moves to this reading: the counter's time equals
 * clock_gettime's here and runs at the measured rate from here on. */
void tly_rt_clock_calibrate(int64_t now)
{
	int one = 1;
	uint64_t c1;
	int64_t ns1;

	if (now < tly_rt_clk.due_ns ||
	    !__atomic_compare_exchange_n(&tly_rt_clk.pending, &one, 2, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	sample(&c1, &ns1);
	if (c1 > tly_rt_clk.c0 && ns1 > tly_rt_clk.ns0) {
		tly_rt_clk.mult = (uint64_t)(((unsigned __int128)(ns1 - tly_rt_clk.ns0) << 32) / (c1 - tly_rt_clk.c0));
		tly_rt_clk.c0 = c1;
		tly_rt_clk.ns0 = ns1;
		__atomic_store_n(&tly_rt_clk.fast, 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&tly_rt_clk.pending, 0, __ATOMIC_RELEASE);
}

int tly_rt_clock_is_fast(void)
{
	return __atomic_load_n(&tly_rt_clk.fast, __ATOMIC_ACQUIRE);
}
