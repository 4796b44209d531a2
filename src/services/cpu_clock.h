/*
 * cpu_clock.h - the CPU's clocks and rates: the cycle counter and its
 * rate (cpu_clock.c; tly_cyc_mhz is declared in tally_shared.h, the
 * runtime's clock uses it too) and the CPU's own rate measured with a
 * perf cycle counter (cpu_mhz.c).
 */
#ifndef TALLY_SERVICES_CPU_CLOCK_H
#define TALLY_SERVICES_CPU_CLOCK_H

#include "tally_shared.h"   /* tly_cyc_mhz */

/*
 * Clocks.  No locks, no system calls beyond the (vDSO) clock read; safe
 * before PAPI_library_init and from any thread.
 *   real nsec: CLOCK_MONOTONIC.
 *   real cyc : TSC (x86-64), CNTVCT_EL0 (aarch64), else real nsec scaled
 *              by tly_cyc_mhz().
 *   virt nsec: CLOCK_THREAD_CPUTIME_ID (CPU time of the calling thread).
 *   virt cyc : virt nsec * tly_cyc_mhz() / 1000.
 */
long long tly_real_nsec(void);
long long tly_real_cyc(void);
long long tly_virt_nsec(void); /* CPU time of the calling thread */
long long tly_virt_cyc(void);

/* The CPU's rate in MHz from its cycle counter over ~5 ms of busy work
 * (cpu_mhz.c, the counter opened through services/perf_counter.h); 0
 * where no cycle counter can be opened. */
double tly_cpu_mhz_measure(void);

#endif /* TALLY_SERVICES_CPU_CLOCK_H */
