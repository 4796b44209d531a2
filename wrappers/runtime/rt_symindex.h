/*
 * rt_symindex.h - a module's function symbols sorted by address, read once
 * per module, for naming code addresses from symbol tables (modules
 * without DWARF of their own): OpenMP regions and MPI call sites
 * (rt_srcname.c), sampled addresses (sampling/samp_rows.c).  libdwfl's
 * dwfl_module_addrinfo walks the whole table at every call.
 * Built with libdw only (TALLY_HAVE_LIBDW).
 */
#ifndef TALLY_RT_SYMINDEX_H
#define TALLY_RT_SYMINDEX_H

#include <stdint.h>
#include <elfutils/libdwfl.h>

struct tly_rt_symmod;

/* The modules indexed so far; zero-initialised is empty.  No lock: each
 * user keeps its own, under its own lock, for one Dwfl whose modules stay
 * (tly_rt_symindex_free before the Dwfl reports its modules again). */
struct tly_rt_symindex {
	struct tly_rt_symmod *mods;
	int32_t n, cap;
};

/* The name of the function symbol (STT_FUNC, STT_GNU_IFUNC: what perf
 * names code by) of module m holding pc (an address of
 * the process), and *off its offset from the symbol; NULL when none holds
 * it.  A symbol with a size holds [value, value + size); one without, the
 * addresses up to the next symbol.  Of several symbols at one address:
 * the global one, then the weak one, then the first.  The name lives as
 * long as the module's ELF. */
const char *tly_rt_symindex_name(struct tly_rt_symindex *x, Dwfl_Module *m, Dwarf_Addr pc, Dwarf_Addr *off);
void tly_rt_symindex_free(struct tly_rt_symindex *x);

#endif
