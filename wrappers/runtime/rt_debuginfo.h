/*
 * rt_debuginfo.h - where Tally's libdwfl sessions (rt_srcname.c: region
 * names; sampling/samp_drain.c and samp_rows.c: call paths) find a
 * module's file (the drain's read, not mapped) and its separate debug
 * information: on this machine only, never through debuginfod
 * (rt_debuginfo.c says why).
 */
#ifndef TALLY_RT_DEBUGINFO_H
#define TALLY_RT_DEBUGINFO_H

#ifdef TALLY_HAVE_LIBDW
#include <elfutils/libdwfl.h>

/* A Dwfl_Callbacks.find_elf for the sampling drain: libdwfl's
 * dwfl_linux_proc_find_elf, but a module's file is read (libelf's
 * ELF_C_READ), not mapped again private and writable, while 64 MiB of
 * files a process allow: `perf record --call-graph dwarf` of the measured
 * program took such maps for the modules' and unwound no further
 * (rt_debuginfo.c). */
int tly_rt_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base, char **file_name,
		    Elf **elfp);

/* Called before each report of the modules to a Dwfl using
 * tly_rt_find_elf: the maps it checks a module's file against are read
 * again, once, after it. */
void tly_rt_find_elf_forget(void);

/* A Dwfl_Callbacks.find_debuginfo: libdwfl's standard search less its
 * last resort, the debuginfod client. */
int tly_rt_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name);
#endif

#endif /* TALLY_RT_DEBUGINFO_H */
