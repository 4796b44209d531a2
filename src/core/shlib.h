/*
 * shlib.h - the table of mapped files with code (PAPI_get_shared_lib_info),
 * from /proc/self/maps.  sysinfo.h includes this for its users; sysinfo.c
 * releases the table at PAPI_shutdown (includes point down: sysinfo -> shlib).
 */
#ifndef TALLY_CORE_SHLIB_H
#define TALLY_CORE_SHLIB_H

#include "papi.h"

/*
 * Re-read /proc/self/maps each call (libraries come and go): one entry per
 * mapped file that has an executable mapping (the program itself included).
 * text = its r-x mapping, data = its rw- file mapping, bss = the anonymous
 * rw- mapping right after the data (when present).  The returned table is
 * owned by Tally and valid only until the next call (from any thread) or
 * PAPI_shutdown.  NULL (detail set) when the maps cannot be read.
 */
const PAPI_shlib_info_t *tly_shlib_info(void);
/* Free the shared-library table (PAPI_shutdown). */
void tly_shlib_release(void);

#endif /* TALLY_CORE_SHLIB_H */
