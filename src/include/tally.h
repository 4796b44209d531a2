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

#ifdef __cplusplus
}
#endif

/* GPU event groups (CUPTI event-group model on modern GPUs). */
#if __has_include("tally_gpu.h")
#include "tally_gpu.h"
#endif

#endif /* TALLY_H */
