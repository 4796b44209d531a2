/*
 * pe_count.h - the arithmetic of a user-space counter read.
 *
 * The kernel's perf_event_mmap_page gives offset = count - prev, where
 * count is what the kernel has accumulated and prev the raw counter value
 * it last programmed or read; user space adds the counter, sign-extended
 * from pmc_width bits.  That is right while prev is the start of a period
 * the kernel programmed (enable, schedule-in, overflow interrupt: it
 * writes -left and keeps -left, sign-extended).  PERF_EVENT_IOC_RESET of
 * a running counter reads it first, so prev becomes the raw value,
 * zero-extended, with count 0: the sum is then 2^width short whenever
 * bit width-1 of the counter is set - on arm's 32-bit counters nearly
 * always, since the kernel starts them at 2^31 + 1 - and a PAPI_read
 * after PAPI_reset gave count - 2^32.  The true count since a reset lies
 * in [0, 2^width) (the kernel reprograms the counter at its wrap), so a
 * negative sum is exactly that case and 2^width puts it right.
 */
#ifndef TALLY_PE_COUNT_H
#define TALLY_PE_COUNT_H

#include <stdint.h>

/* The count of a counter of `width` bits (1..64) reading `pmc` whose
 * page says `offset`; never negative. */
static inline int64_t tly_pe_count_of(int64_t offset, uint64_t pmc, unsigned width)
{
	unsigned shift = 64u - width;
	uint64_t v = (uint64_t)offset + (uint64_t)((int64_t)(pmc << shift) >> shift);

	/* 2 << (width - 1) is 2^width, and 0 for width 64 (never short) */
	if (__builtin_expect((int64_t)v < 0, 0))
		v += UINT64_C(2) << (width - 1);
	return (int64_t)v;
}

#endif /* TALLY_PE_COUNT_H */
