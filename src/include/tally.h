/*
 * tally.h - Tally's own API beyond PAPI: user regions, GPU event groups,
 * output control.  Include after (or instead of) papi.h; links with -ltally
 * (or -lpapi).
 */
#ifndef TALLY_H
#define TALLY_H

#include "papi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Regions (implemented with the measurement runtime) --------------
 * tally_region_begin/end bracket a named region in the calling thread.
 * Under the preloaded runtime (tally-run) they become nodes of the
 * thread's region tree in the job's HDF5 file; without it they are
 * recorded like PAPI_hl_region_begin/end.  Return PAPI_OK or PAPI_E*. */
PAPI_EXPORT int tally_region_begin(const char *name);
PAPI_EXPORT int tally_region_end(const char *name);

/* ---- Multiplexing ---------------------------------------------------
 * tally_multiplex_coverage fills fractions[i] (one per event of the set,
 * in the order they were added) with the fraction, 0..1, of the time the
 * set ran during which event i was really counted since the last
 * PAPI_start/PAPI_reset.  Multiplexed values are estimates scaled by
 * 1/fraction; 1.0 for every event of a set that is not multiplexed; 0
 * for an event never counted (its value is then 0).  Running or stopped
 * sets.  PAPI_OK, PAPI_ENOEVST, PAPI_EINVAL (fractions NULL),
 * PAPI_ENOINIT. */
PAPI_EXPORT int tally_multiplex_coverage(int EventSet, double *fractions);

/* ---- Overflow delivery ---------------------------------------------
 * PAPI_overflow's handler (or PAPI_profil's buckets) is called at most
 * once per overflowing event per signal the kernel sends, and Tally
 * lengthens the sampling period while signals come faster than the
 * program can run between them (docs/multiplex-overflow.md).
 * tally_overflow_missed gives, for event EventCode of EventSet, the
 * thresholds its count crossed since the last PAPI_start that were not
 * delivered (*missed), and the sampling period in effect (*period, may
 * be NULL: the threshold, or a multiple of it after backing off; it goes
 * back to the threshold at the next PAPI_start).  Software overflow
 * (PAPI_OVERFLOW_FORCE_SW) calls the handler once per crossing and
 * misses none; its profile (PAPI_PROFIL_FORCE_SW) misses the crossings
 * found at PAPI_stop before any tick of its timer (no PC to credit: a
 * busy machine can keep a thread's CPU-time timer from firing).  Running
 * or stopped sets; exact once the set is stopped.  PAPI_OK, PAPI_ENOEVST,
 * PAPI_ENOEVNT (event not in the set), PAPI_EINVAL (no overflow on the
 * event, missed NULL), PAPI_ENOINIT. */
PAPI_EXPORT int tally_overflow_missed(int EventSet, int EventCode, long long *missed, long long *period);

/* Where PAPI_get_hardware_info's cpu_max_mhz/cpu_min_mhz/mhz came from:
 * "cpufreq", "/proc/cpuinfo", "measured: cycle counter over time" (the
 * system publishes no frequency) or "none published, no cycle counter"
 * (the figures are 0).  NULL before PAPI_library_init. */
PAPI_EXPORT const char *tally_hw_mhz_source(void);

/*
 * tally_component_name gives component cidx's name ("perf_event", "cuda",
 * ...) without what PAPI_get_component_info(0) does besides (it resolves
 * every preset on the counters to count them).  NULL when the library is
 * not initialised or cidx is out of range (PAPI_ENOCMP in the error detail).
 */
PAPI_EXPORT const char *tally_component_name(int cidx);

#ifdef __cplusplus
}
#endif


/* GPU event groups (CUPTI event-group model on modern GPUs). */
#include "tally_gpu.h"

#endif /* TALLY_H */
