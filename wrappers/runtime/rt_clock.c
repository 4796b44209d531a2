/*
 * rt_clock.c - the runtime's clock: CLOCK_MONOTONIC nanoseconds read from
 * the CPU's counter instead of clock_gettime, which costs 25-45 ns in a VM
 * and is read twice per MPI call and region visit.  The counter is
 * anchored to CLOCK_MONOTONIC once, at start-up.  Its rate: aarch64,
 * CNTFRQ_EL0; x86-64, the kernel's TSC conversion from a perf_event mmap
 * page, or (in VMs, where the kernel does not publish it) the core's TSC
 * calibration against CLOCK_MONOTONIC (10 ms, about 1e-5).  The TSC is used
 * only when it is the kernel's clocksource (stable and synchronised across
 * CPUs); otherwise the clock stays clock_gettime.  Durations agree with
 * CLOCK_MONOTONIC to the ppm-level difference of the two rates.
 *
 * State: written once, before the runtime measures anything, by the
 * start-up (which runs under pthread_once); `fast` is published last with
 * release order and read with acquire order.
 */
#include "runtime/rt.h"

#include "tally_shared.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

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
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
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

static uint64_t fast_rate(void)
{
	uint64_t mult;
	double mhz;

	if (!tsc_is_clocksource())
		return 0;
	if ((mult = rate_from_kernel()) != 0)
		return mult;
	mhz = tly_cyc_mhz();
	return mhz > 1.0 ? (uint64_t)(1000.0 / mhz * 4294967296.0 + 0.5) : 0;
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

void tly_rt_clock_init(void)
{
	uint64_t mult = fast_rate();

	if (!mult || __atomic_load_n(&tly_rt_clk.fast, __ATOMIC_ACQUIRE))
		return;
	/* the anchor: a counter value and the clock read right after it */
	tly_rt_clk.c0 = tly_rt_counter();
	tly_rt_clk.ns0 = mono_ns();
	tly_rt_clk.mult = mult;
	__atomic_store_n(&tly_rt_clk.fast, 1, __ATOMIC_RELEASE);
}

int tly_rt_clock_is_fast(void)
{
	return __atomic_load_n(&tly_rt_clk.fast, __ATOMIC_ACQUIRE);
}
