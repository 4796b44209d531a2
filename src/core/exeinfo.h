/*
 * exeinfo.h - the main program's path and address ranges.
 * sysinfo.c calls this once, under the library lock (includes point down:
 * sysinfo -> exeinfo).
 */
#ifndef TALLY_CORE_EXEINFO_H
#define TALLY_CORE_EXEINFO_H

#include "papi.h"

/* fullname and address_info of the main program; PAPI_OK or PAPI_ESYS. */
int tly_exe_fill(PAPI_exe_info_t *exe);

#endif /* TALLY_CORE_EXEINFO_H */
