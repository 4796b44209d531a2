/*
 * pe_rdpmc.c - reading counters from user space without a system call.
 *
 * The kernel publishes, in the first page mmap()ed from a perf fd, which
 * hardware counter holds the event (index, 0 = none) and the count
 * accumulated so far (offset), guarded by a sequence lock: read lock,
 * index, offset, the counter itself, and retry if lock moved (the event
 * was scheduled out, migrated or updated meanwhile).
 *
 * x86-64: `rdpmc index-1` once the kernel sets cap_user_rdpmc.
 * arm64 (Linux 5.17+): the event must ask for it (attr.config1 bit 1,
 * the armv8_pmuv3 "rdpmc" format bit) and kernel.perf_user_access must
 * be 1; the kernel then sets PMUSERENR_EL0 while the task runs.  Index
 * 32 is the cycle counter (PMCCNTR_EL0); index n in 1..31 is event
 * counter n-1 (PMEVCNTR<n-1>_EL0).  pmc_width says how many bits the
 * counter has (32 on PMUv3 without long events, 64 for the cycle counter
 * or long events).
 *
 * Software events have index 0, so on machines without a hardware PMU
 * this path is never taken (the page is not even mapped).  Set
 * TALLY_PERF_RDPMC=0 to force read() for A/B comparisons.
 */
#include "pe_internal.h"
#include "pe_count.h"

#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tally_shared.h"

#if defined(__x86_64__)
#define HAVE_RDPMC 1
static inline uint64_t rdpmc(uint32_t counter)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)lo | ((uint64_t)hi << 32);
}
#elif defined(__aarch64__)
#define HAVE_RDPMC 1
#define ARM64_CYCLE_COUNTER 31 /* user index 32, minus one */
/* mrs needs the register name at compile time: one case per counter */
#define EVCNTR(n) case n: __asm__ __volatile__("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); break
static inline __attribute__((always_inline)) uint64_t rdpmc(uint32_t counter)
{
	uint64_t v = 0;

	switch (counter) {
	EVCNTR(0); EVCNTR(1); EVCNTR(2); EVCNTR(3); EVCNTR(4); EVCNTR(5); EVCNTR(6); EVCNTR(7);
	EVCNTR(8); EVCNTR(9); EVCNTR(10); EVCNTR(11); EVCNTR(12); EVCNTR(13); EVCNTR(14);
	EVCNTR(15); EVCNTR(16); EVCNTR(17); EVCNTR(18); EVCNTR(19); EVCNTR(20); EVCNTR(21);
	EVCNTR(22); EVCNTR(23); EVCNTR(24); EVCNTR(25); EVCNTR(26); EVCNTR(27); EVCNTR(28);
	EVCNTR(29); EVCNTR(30);
	case ARM64_CYCLE_COUNTER:
		__asm__ __volatile__("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	default:
		break;
	}
	return v;
}
#else
#define HAVE_RDPMC 0
#endif

#if defined(__aarch64__)
/* 1 when /proc/sys/kernel/perf_user_access allows EL0 counter reads. */
static int user_access_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_user_access", "r");
	int v = 0;

	if (!f)
		return 0;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v == 1;
}
#endif

void tly_pe_rdpmc_attr(struct perf_event_attr *a)
{
#if defined(__aarch64__)
	/* only the CPU PMU (raw, generic hardware or its dynamic type) knows
	 * the bit; a per-task counter is the only kind the kernel allows */
	int cpu_pmu = a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
	              a->type == PERF_TYPE_RAW || a->type >= PERF_TYPE_MAX;

	if (cpu_pmu && tly_pe_rdpmc_allowed() && user_access_on())
		a->config1 |= 2;
#else
	(void)a;
#endif
}

struct perf_event_mmap_page *tly_pe_rdpmc_map(int fd)
{
	struct perf_event_mmap_page *pg;
	long psz = sysconf(_SC_PAGESIZE);

	if (!HAVE_RDPMC || !tly_pe_rdpmc_allowed())
		return NULL;
	pg = mmap(NULL, (size_t)psz, PROT_READ, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED)
		return NULL;
	if (!pg->cap_user_rdpmc) {
		munmap(pg, (size_t)psz);
		return NULL;
	}
	return pg;
}

void tly_pe_rdpmc_unmap(struct perf_event_mmap_page *pg)
{
	if (pg)
		munmap(pg, (size_t)sysconf(_SC_PAGESIZE));
}

static inline __attribute__((always_inline)) int read_one(const struct perf_event_mmap_page *pg, long long *val)
{
	const volatile struct perf_event_mmap_page *p = pg;
	uint32_t seq, idx;
	unsigned width;
	int64_t count;

	do {
		seq = p->lock;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		idx = p->index;
		count = p->offset;
		width = p->pmc_width; /* once: the page is volatile */
		/* one test and branch each, all predicted not taken */
		if (__builtin_expect(!HAVE_RDPMC || idx == 0, 0))
			return PAPI_ECMP;
		if (__builtin_expect(!p->cap_user_rdpmc, 0))
			return PAPI_ECMP;
		if (__builtin_expect(width - 1u > 63u, 0))
			return PAPI_ECMP;
#if HAVE_RDPMC
		count = tly_pe_count_of(count, rdpmc(idx - 1), width);
#endif
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (p->lock != seq);
	*val = count;
	return PAPI_OK;
}

int tly_pe_rdpmc_read(const struct perf_event_mmap_page *pg, long long *val)
{
	return read_one(pg, val);
}

int tly_pe_rdpmc_read_all(struct perf_event_mmap_page *const *pages, int n, long long *vals)
{
	for (int i = 0; i < n; i++)
		if (read_one(pages[i], &vals[i]) != PAPI_OK)
			return PAPI_ECMP;
	return PAPI_OK;
}

int tly_pe_rdpmc_allowed(void)
{
	return tly_setting_flag(TLY_SET_perf_rdpmc);
}
