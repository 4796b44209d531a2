/*
 * tally_region.c - tally_region_begin/end in libtally.
 *
 * Without the measurement runtime a Tally region is a PAPI 7 high-level
 * region (same per-thread counters and summary).  Under tally-run,
 * libtally-preload.so exports its own tally_region_begin/end and
 * PAPI_hl_region_*; being preloaded, its definitions are found first and
 * these are not called: regions then go into the job's region tree.
 */
#include "papi.h"
#include "tally.h"

int tally_region_begin(const char *name)
{
	return PAPI_hl_region_begin(name);
}

int tally_region_end(const char *name)
{
	return PAPI_hl_region_end(name);
}
