/*
 * rt_clock.h - the runtime's clock: CLOCK_MONOTONIC ns, read from the
 * CPU's counter when the kernel vouches for it (rt_clock.c), else from
 * clock_gettime.
 */
#ifndef TALLY_RT_CLOCK_H
#define TALLY_RT_CLOCK_H

#include <stdint.h>
#include <time.h>


struct tly_rt_clock {
	uint64_t c0;          /* counter at the anchor */
	int64_t ns0;          /* CLOCK_MONOTONIC at the anchor */
	uint64_t mult;        /* ns per tick, 32.32 fixed point */
	int fast;             /* published last (release) */
	int pending;          /* 1: the rate is measured from the anchor at
			       * the first slow read after due_ns (rt_clock.c) */
	int64_t due_ns;       /* written once, before pending */
};
extern struct tly_rt_clock tly_rt_clk;
void tly_rt_clock_init(void);     /* once, at start-up */
int tly_rt_clock_is_fast(void);
/* The slow path's check: measure the counter's rate when it is due. */
void tly_rt_clock_calibrate(int64_t now);
#define TLY_RT_CAL_NS 50000000LL

static inline uint64_t tly_rt_counter(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#else
	return 0;
#endif
}

static inline int64_t tly_rt_now(void)
{
	struct timespec ts;

	if (__atomic_load_n(&tly_rt_clk.fast, __ATOMIC_ACQUIRE)) {
		uint64_t d = tly_rt_counter() - tly_rt_clk.c0;

		return tly_rt_clk.ns0 + (int64_t)(((unsigned __int128)d * tly_rt_clk.mult) >> 32);
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (__atomic_load_n(&tly_rt_clk.pending, __ATOMIC_ACQUIRE))
		tly_rt_clock_calibrate((int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

#endif /* TALLY_RT_CLOCK_H */
