/*
 * pe_rdpmc.c - reading counters from user space without a system call.
 *
 * The kernel publishes, in the first page mmap()ed from a perf fd, which
 * hardware counter holds the event (index, 0 = none) and the count
 * accumulated so far (offset), guarded by a sequence lock.  Only x86-64
 * is implemented: `rdpmc` there is well defined once the kernel sets
 * cap_user_rdpmc.  arm64 needs PMUSERENR and attr.config1 bits; until the
 * arm64 QEMU test bed exists it always falls back to read().
 *
 * Software events have index 0, so on machines without a hardware PMU
 * this path is never taken (the page is not even mapped).  Set
 * TALLY_PERF_RDPMC=0 to force read() for A/B comparisons.
 */
#include "pe_internal.h"

#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
#define HAVE_RDPMC 1
static inline uint64_t rdpmc(uint32_t counter)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)lo | ((uint64_t)hi << 32);
}
#else
#define HAVE_RDPMC 0
#endif

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

int tly_pe_rdpmc_read(const struct perf_event_mmap_page *pg, long long *val)
{
	const volatile struct perf_event_mmap_page *p = pg;
	uint32_t seq, idx;
	int64_t count;

	do {
		seq = p->lock;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		idx = p->index;
		count = p->offset;
		if (!HAVE_RDPMC || !p->cap_user_rdpmc || idx == 0 ||
		    p->pmc_width == 0 || p->pmc_width > 64)
			return PAPI_ECMP;
#if HAVE_RDPMC
		{
			/* sign-extend the pmc_width-bit counter before adding it */
			unsigned shift = 64u - p->pmc_width;
			int64_t pmc = (int64_t)(rdpmc(idx - 1) << shift) >> shift;

			count += pmc;
		}
#endif
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (p->lock != seq);
	*val = count;
	return PAPI_OK;
}
