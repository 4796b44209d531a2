/*
 * tally_shared.h - the one internal header the measurement runtime
 * (wrappers/) may include besides the public ones (papi.h, tally_gpu.h):
 * what the library and the runtime truly share.  Everything else of
 * src/core stays private to the library; the include rules are checked
 * by testsuite/layout/check_includes.py (docs/DESIGN.md).
 *
 *   - the project's one hash (FNV-1a, 64 bits): region names, pass
 *     schedules, GPU configuration images;
 *   - the calling thread's last-error detail, the sentence behind a
 *     PAPI_E* code (src/core/errors.c);
 *   - the cycle-counter rate the library converts time with
 *     (src/core/sysinfo.c), so the runtime's clock agrees with it.
 */
#ifndef TALLY_SHARED_H
#define TALLY_SHARED_H

#include <stddef.h>
#include <stdint.h>

#define TLY_FNV_BASIS 14695981039346656037ULL

/* Chain calls to hash several pieces, starting from TLY_FNV_BASIS. */
static inline uint64_t tly_fnv1a(uint64_t h, const void *data, size_t n)
{
	const unsigned char *b = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/* This thread's detail string of its last failure ("" when none). */
const char *tly_err_detail(void);

/*
 * Cycle-counter rate in MHz used to convert time to cycles: CNTFRQ_EL0 on
 * aarch64, the TSC calibrated once against CLOCK_MONOTONIC on x86-64
 * (~10 ms on first use), 1000 (one cycle per ns) elsewhere.
 */
double tly_cyc_mhz(void);

#endif /* TALLY_SHARED_H */
