/*
 * test_mpx_scale.c - the multiplex scaling arithmetic
 * (count * total / running in 128 bits): exact on small values, never
 * negative, clamped at LLONG_MAX instead of wrapping, 0 when the counter
 * never ran, unscaled when it ran the whole time.
 */
#include <limits.h>

#include "tharness.h"
#include "components/perf_event/pe_internal.h"

int main(void)
{
	const uint64_t big = 1ULL << 62;
	struct { int line; uint64_t count, total, running; long long want; } rows[] = {
		{ __LINE__, 1000, 2000, 1000, 2000 },
		{ __LINE__, 1000, 3000, 1000, 3000 },
		{ __LINE__, 7, 10, 3, 23 },                     /* floor(70/3) */
		{ __LINE__, 1000, 1000, 1000, 1000 },
		{ __LINE__, 1000, 1000, 2000, 1000 },           /* running > total: unscaled */
		{ __LINE__, 1000, 5000, 0, 0 },                 /* never ran */
		{ __LINE__, 0, 5000, 100, 0 },
		{ __LINE__, big, 1ULL << 63, 1ULL << 61, LLONG_MAX }, /* 2^64: clamped */
		{ __LINE__, big, 4, 1, LLONG_MAX },
		{ __LINE__, big, 3, 2, 6917529027641081856LL }, /* 1.5 * 2^62, no wrap */
		{ __LINE__, 1ULL << 40, 1ULL << 40, 1ULL << 39, 1LL << 41 }, /* 80-bit product */
		{ __LINE__, UINT64_MAX, 1, 1, LLONG_MAX },      /* count beyond LLONG_MAX */
		{ __LINE__, 123456789, UINT64_MAX, UINT64_MAX / 2, 246913578 },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		th_at(rows[i].line);
		TH_EQ(tly_pe_mpx_scale(rows[i].count, rows[i].total, rows[i].running), rows[i].want);
	}
	return th_done();
}
