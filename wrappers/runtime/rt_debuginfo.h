/*
 * rt_debuginfo.h - where Tally's libdwfl sessions (rt_srcname.c: region
 * names; sampling/samp_drain.c and samp_rows.c: call paths) find a
 * module's separate debug information: on this machine only, never
 * through debuginfod (rt_debuginfo.c says why).
 */
#ifndef TALLY_RT_DEBUGINFO_H
#define TALLY_RT_DEBUGINFO_H

#ifdef TALLY_HAVE_LIBDW
#include <elfutils/libdwfl.h>

/* A Dwfl_Callbacks.find_debuginfo: libdwfl's standard search less its
 * last resort, the debuginfod client. */
int tly_rt_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name);
#endif

#endif /* TALLY_RT_DEBUGINFO_H */
