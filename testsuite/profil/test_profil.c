/*
 * test_profil.c - PAPI_profil and PAPI_sprofil on perf::TASK-CLOCK
 * overflow (every 200 us of CPU) over a program with a known hot
 * function, whose address range comes from the ELF symbol table
 * (sym_util.h) and whose buckets from PAPI_get_executable_info's text
 * start.
 *
 *  - profil rows (16/32/64-bit buckets, scale 0x10000 and 0x8000,
 *    hardware and PAPI_PROFIL_FORCE_SW): >= 90% of the hits are in the
 *    hot function's buckets and the hits number about one per 200 us of
 *    CPU (within 15%, hits + the crossings counted missed: perf drops a
 *    clock period whose timer fires late, and the hardware path gives
 *    one hit per sample, the rest counted by tally_overflow_missed;
 *    the hits themselves at least half; FORCE_SW's timer can be starved
 *    of ticks on a busy machine: its row is then run again, said; its
 *    row adds a catch-all bucket, whose crossings count with the hits);
 *    scale 0x2 puts every hit in bucket 0.
 *  - RANDOM keeps about 3/4 of the hits; WEIGHTED with FORCE_SW weighs
 *    hits by thresholds crossed so the sum again matches the CPU time.
 *  - sprofil over two regions (two functions, 200 ms in one, 100 ms in
 *    the other): hits + missed = the crossings (within 15%), hits split
 *    2:1 (within 15%), none outside the regions' functions.
 *  - the reference's errors: scale out of 0x2..0x20000, buffer smaller
 *    than a bucket, profil on an event with an overflow handler, turning
 *    off what is not on, running set, event not in set, bad set.
 */
#include <stdlib.h>

#include "api_util.h"
#include "sym_util.h"
#include "tally.h"

#define PERIOD 200000 /* ns of task-clock per hit */
#define MS 1000000LL

static int es = PAPI_NULL, tc;
static char *text;
static uintptr_t hot_lo, hot_hi, warm_lo, warm_hi;
static volatile long long run_ns;

/* The known hot functions: user-space spinning, checking the clock
 * every ~1 ms.  Kept out of line (no inlining, cloning or splitting at
 * -O2/-O3, as in a Release build): their symbol's range is where the hits
 * must land. */
#if defined(__clang__)
#define PROFIL_HOT_ATTR __attribute__((noinline))
#else
#define PROFIL_HOT_ATTR __attribute__((noipa))
#endif

PROFIL_HOT_ATTR void hot(void)
{
	uint64_t x = 1; /* in a register: no sanitizer calls in the loop */
	long long end = th_thread_cpu_ns() + run_ns;

	while (th_thread_cpu_ns() < end)
		for (int i = 0; i < 300000; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			__asm__ volatile("" : "+r"(x));
		}
}

PROFIL_HOT_ATTR void warm(void)
{
	uint64_t x = 3;
	long long end = th_thread_cpu_ns() + run_ns;

	while (th_thread_cpu_ns() < end)
		for (int i = 0; i < 300000; i++) {
			x = x * 2862933555777941757ULL + 3037000493ULL;
			__asm__ volatile("" : "+r"(x));
		}
}

static uint64_t bucket(const void *buf, int bytes, long long i)
{
	return bytes == 2 ? ((const uint16_t *)buf)[i] : bytes == 4 ? ((const uint32_t *)buf)[i]
								: ((const uint64_t *)buf)[i];
}

/* Total hits and hits in [lo, hi) of a buffer starting at `off`. */
static void sum(const void *buf, unsigned bytes_total, int bytes, char *off, unsigned scale, uintptr_t lo,
		uintptr_t hi, uint64_t *all, uint64_t *in)
{
	*all = *in = 0;
	for (long long i = 0; i < bytes_total / bytes; i++) {
		uint64_t v = bucket(buf, bytes, i);
		/* the bucket covers [off + i*2^17/scale, off + (i+1)*2^17/scale) */
		uintptr_t a = (uintptr_t)off + (uintptr_t)((unsigned __int128)i * 131072 / scale);

		*all += v;
		if (a >= lo && a < hi)
			*in += v;
	}
}

/* Profile buf (and, for a FORCE_SW row, the catch-all `rest` after it)
 * at `threshold`; 0 turns it off. */
static void set_profile(PAPI_sprofil_t r[2], int flags, int threshold)
{
	if (flags & PAPI_PROFIL_FORCE_SW)
		TH_EQ(PAPI_sprofil(r, 2, es, tc, threshold, flags), PAPI_OK);
	else
		TH_EQ(PAPI_profil(r[0].pr_base, r[0].pr_size, r[0].pr_off, r[0].pr_scale, es, tc, threshold, flags),
		      PAPI_OK);
}

/* One run of the hot function under PAPI_profil: hits, hits in hot,
 * crossings missed, CPU time.  A FORCE_SW row profiles through
 * PAPI_sprofil with a catch-all bucket after the text's buffer: its
 * tick credits every crossing since the last tick to one PC, and a busy
 * machine's starved timer can put hundreds of them on a PC outside the
 * buffer (the clock read in libc), where PAPI_profil drops them as the
 * reference does; `outside` counts them. */
static void profile_once(void *buf, size_t size, int bytes, unsigned scale, int flags, uint64_t *all,
			 uint64_t *in, long long *missed, long long *t0, uint64_t *outside)
{
	int bflag = bytes == 2 ? PAPI_PROFIL_BUCKET_16 : bytes == 4 ? PAPI_PROFIL_BUCKET_32 : PAPI_PROFIL_BUCKET_64;
	uint64_t rest[1] = { 0 };
	PAPI_sprofil_t r[2] = { { buf, (unsigned)size, (vptr_t)text, scale }, { rest, (unsigned)bytes, 0, 0x2 } };
	long long v;

	memset(buf, 0, size);
	*missed = -1;
	set_profile(r, flags | bflag, PERIOD);
	th_clock_begin();
	TH_EQ(PAPI_start(es), PAPI_OK);
	*t0 = th_thread_cpu_ns();
	run_ns = 200 * MS;
	hot();
	*t0 = th_thread_cpu_ns() - *t0;
	TH_EQ(PAPI_stop(es, &v), PAPI_OK);
	TH_EQ(tally_overflow_missed(es, tc, missed, NULL), PAPI_OK);
	set_profile(r, flags | bflag, 0);
	sum(buf, (unsigned)size, bytes, text, scale, hot_lo, hot_hi, all, in);
	*outside = bucket(rest, bytes, 0);
}

static void profile_row(int line, int bytes, unsigned scale, int flags, double want_frac)
{
	size_t size = (size_t)(((unsigned __int128)(uintptr_t)(hot_hi + 64 - (uintptr_t)text) * scale) >> 17) *
		      (size_t)bytes + (size_t)bytes;
	void *buf = calloc(1, size);
	uint64_t all, in;
	long long t0, missed;
	uint64_t outside;
	double got;

	th_at(line);
	profile_once(buf, size, bytes, scale, flags, &all, &in, &missed, &t0, &outside);
	/* the CPU-time timer (FORCE_SW) fires only at kernel ticks that find
	 * the thread running; a busy machine can give it none in 200 ms of
	 * CPU (its crossings then counted missed): run again, said */
	for (int again = 1; flags & PAPI_PROFIL_FORCE_SW && all == 0 && again <= 5; again++) {
		printf("flags 0x%x: no CPU-timer tick in %.0f ms of CPU (%lld crossings missed, busy machine); "
		       "run %d again\n", flags, t0 / 1e6, missed, again);
		profile_once(buf, size, bytes, scale, flags, &all, &in, &missed, &t0, &outside);
	}
	printf("bytes %d scale 0x%x flags 0x%x: %llu hits + %lld missed + %llu outside the text, %llu in hot "
	       "(%.1f%%), expected %.0f\n", bytes, scale, flags, (unsigned long long)all, missed,
	       (unsigned long long)outside, (unsigned long long)in, all ? 100.0 * in / all : 0.0,
	       want_frac * t0 / PERIOD);
	TH_CHECK(missed >= 0);
	/* a missed crossing would have been a hit as often as any other */
	got = (double)all + (double)outside + want_frac * (double)missed;
	if (scale == 2) /* one bucket spans 64 KiB: the whole text */
		TH_EQ(bucket(buf, bytes, 0), all);
	else
		TH_CHECK(in >= 0.9 * all);
	/* the profiling clock (task clock) runs at least the thread's CPU
	 * time and at most that plus the thread's own extra time (steal,
	 * IRQs) since th_clock_begin; 15% for sampling and rounding */
	TH_CHECK(got >= 0.85 * want_frac * t0 / PERIOD);
	TH_CHECK(got <= 1.15 * want_frac * (t0 + th_clock_allowance_ns()) / PERIOD);
	/* the hits at least half, where perf samples the task clock; FORCE_SW
	 * rides the kernel's CPU-time timer, which a busy machine starves (a
	 * bare timer_create(CLOCK_THREAD_CPUTIME_ID) every 200 us beside 6
	 * busy processes here: 0-5 signals in 200 ms of CPU, 50 quiet, one
	 * carrying 945 overruns; one late tick put 507 of 1001 crossings
	 * after the buffer, at 497 hits): some crossings credited to a PC,
	 * every one counted above */
	if (flags & PAPI_PROFIL_FORCE_SW)
		TH_CHECK(all + outside > 0);
	else
		TH_CHECK(all >= 0.5 * want_frac * t0 / PERIOD);
	free(buf);
	th_at(0);
}

static void test_profil(void)
{
	struct { int line; int bytes; unsigned scale; int flags; double frac; } rows[] = {
		{ __LINE__, 2, 0x10000, PAPI_PROFIL_POSIX, 1.0 },
		{ __LINE__, 4, 0x10000, PAPI_PROFIL_POSIX, 1.0 },
		{ __LINE__, 8, 0x10000, PAPI_PROFIL_POSIX, 1.0 },
		{ __LINE__, 2, 0x8000, PAPI_PROFIL_POSIX, 1.0 },
		{ __LINE__, 4, 0x20000, PAPI_PROFIL_POSIX, 1.0 },
		{ __LINE__, 8, 0x2, PAPI_PROFIL_POSIX, 1.0 },
		{ __LINE__, 4, 0x10000, PAPI_PROFIL_RANDOM, 0.75 },
		{ __LINE__, 4, 0x10000, PAPI_PROFIL_FORCE_SW | PAPI_PROFIL_WEIGHTED, 1.0 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		profile_row(rows[i].line, rows[i].bytes, rows[i].scale, rows[i].flags, rows[i].frac);
}

static void test_sprofil(void)
{
	unsigned na = (unsigned)(hot_hi - hot_lo) + 2, nb = (unsigned)(warm_hi - warm_lo) + 2;
	uint16_t *a = calloc(1, na), *b = calloc(1, nb);
	PAPI_sprofil_t r[2] = { { a, na, (vptr_t)hot_lo, 0x10000 }, { b, nb, (vptr_t)warm_lo, 0x10000 } };
	uint64_t all_a, in_a, all_b, in_b;
	long long v;

	TH_EQ(PAPI_sprofil(r, 2, es, tc, PERIOD, PAPI_PROFIL_POSIX | PAPI_PROFIL_BUCKET_16), PAPI_OK);
	TH_EQ(PAPI_start(es), PAPI_OK);
	run_ns = 200 * MS;
	hot();
	run_ns = 100 * MS;
	warm();
	TH_EQ(PAPI_stop(es, &v), PAPI_OK);
	long long missed = -1;

	TH_EQ(tally_overflow_missed(es, tc, &missed, NULL), PAPI_OK);
	TH_EQ(PAPI_sprofil(r, 2, es, tc, 0, PAPI_PROFIL_POSIX), PAPI_OK);
	sum(a, na, 2, (char *)hot_lo, 0x10000, hot_lo, hot_hi, &all_a, &in_a);
	sum(b, nb, 2, (char *)warm_lo, 0x10000, warm_lo, warm_hi, &all_b, &in_b);
	printf("sprofil: hot %llu hits, warm %llu hits, %lld missed\n", (unsigned long long)all_a,
	       (unsigned long long)all_b, missed);
	TH_EQ(in_a, all_a);
	TH_EQ(in_b, all_b);
	/* every crossing a hit or counted missed, as test_profil's rows (a
	 * missed one would have been hot's as often as 2 in 3: hot 200 ms,
	 * warm 100 ms); hot kept 848 of 1000 once, ASan stage, a quiet
	 * machine: the calls alone hold the rate's shape, at least half */
	TH_CHECK(missed >= 0);
	TH_NEAR((double)all_a + (double)all_b + (double)missed, 1500, 0.15);
	TH_CHECK(all_a >= 500 && all_b >= 250);
	/* hot / warm is 2 within 15% for some share of the missed crossings
	 * between them: which region a missed one fell in is not known (hot
	 * 968, warm 402, 131 missed once, ASan stage: 2.41 counting the hits
	 * alone); swapped regions (1/2) still fail */
	double m = missed > 0 ? (double)missed : 0.0;
	double lo = (double)all_a / ((double)all_b + m), hi = ((double)all_a + m) / (double)(all_b ? all_b : 1);
	printf("sprofil: hot / warm between %.3f and %.3f as the missed ones fell\n", lo, hi);
	TH_CHECK(lo <= 2.0 * 1.15 && hi >= 2.0 * 0.85);
	free(a);
	free(b);
}

static void handler(int set, void *pc, long long vec, void *ctx)
{
	(void)set; (void)pc; (void)vec; (void)ctx;
}

static void test_errors(void)
{
	static uint16_t buf[64];
	const int f = PAPI_PROFIL_POSIX;
	int pf;

	TH_EQ(PAPI_event_name_to_code(API_PAGE_FAULTS, &pf), PAPI_OK);
	struct { int line; int rc; int want; } rows[] = {
		{ __LINE__, PAPI_profil(buf, sizeof buf, (vptr_t)text, 1, es, tc, PERIOD, f), PAPI_EINVAL },
		{ __LINE__, PAPI_profil(buf, sizeof buf, (vptr_t)text, 0, es, tc, PERIOD, f), PAPI_EINVAL },
		{ __LINE__, PAPI_profil(buf, sizeof buf, (vptr_t)text, 0x20001, es, tc, PERIOD, f), PAPI_EINVAL },
		{ __LINE__, PAPI_profil(buf, 1, (vptr_t)text, 0x10000, es, tc, PERIOD, f), PAPI_EINVAL },
		{ __LINE__, PAPI_profil(buf, 4, (vptr_t)text, 0x10000, es, tc, PERIOD, f | PAPI_PROFIL_BUCKET_64),
		  PAPI_EINVAL },
		{ __LINE__, PAPI_profil(buf, sizeof buf, (vptr_t)text, 0x10000, es, tc, 0, f), PAPI_EINVAL },
		{ __LINE__, PAPI_profil(buf, sizeof buf, (vptr_t)text, 0x10000, es, pf, PERIOD, f), PAPI_ENOEVNT },
		{ __LINE__, PAPI_profil(buf, sizeof buf, (vptr_t)text, 0x10000, 8888, tc, PERIOD, f), PAPI_ENOEVST },
		{ __LINE__, PAPI_sprofil(NULL, 1, es, tc, PERIOD, f), PAPI_EINVAL },
		{ __LINE__, PAPI_overflow(es, tc, PERIOD, 0, handler), PAPI_OK },
		{ __LINE__, PAPI_profil(buf, sizeof buf, (vptr_t)text, 0x10000, es, tc, PERIOD, f), PAPI_EINVAL },
		{ __LINE__, PAPI_overflow(es, tc, 0, 0, handler), PAPI_OK },
		{ __LINE__, PAPI_profil(buf, sizeof buf, (vptr_t)text, 0x20000, es, tc, PERIOD, f), PAPI_OK },
		{ __LINE__, PAPI_overflow(es, tc, PERIOD, 0, handler), PAPI_EINVAL }, /* profiled */
		{ __LINE__, PAPI_start(es), PAPI_OK },
		{ __LINE__, PAPI_profil(buf, sizeof buf, (vptr_t)text, 0x10000, es, tc, PERIOD, f), PAPI_EISRUN },
		{ __LINE__, PAPI_stop(es, NULL), PAPI_OK },
		{ __LINE__, PAPI_profil(buf, sizeof buf, (vptr_t)text, 0x20000, es, tc, 0, f), PAPI_OK },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(rows[i].rc, rows[i].want);
	}
	th_at(0);
}

int main(void)
{
	const PAPI_exe_info_t *exe;

	api_init();
	TH_EQ(sym_range("hot", &hot_lo, &hot_hi), 0);
	TH_EQ(sym_range("warm", &warm_lo, &warm_hi), 0);
	exe = PAPI_get_executable_info();
	TH_CHECK(exe && exe->address_info.text_start);
	if (!exe || hot_hi <= hot_lo)
		return th_done();
	text = (char *)exe->address_info.text_start;
	TH_CHECK((uintptr_t)text <= hot_lo && hot_hi <= (uintptr_t)exe->address_info.text_end);
	TH_EQ(PAPI_event_name_to_code(API_TASK_CLOCK, &tc), PAPI_OK);
	TH_EQ(PAPI_create_eventset(&es), PAPI_OK);
	TH_EQ(PAPI_add_event(es, tc), PAPI_OK);
	test_errors();
	test_profil();
	test_sprofil();
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	PAPI_shutdown();
	return th_done();
}
