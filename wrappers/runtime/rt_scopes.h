/*
 * rt_scopes.h - a compilation unit's functions and inlined instances,
 * indexed once, for naming code addresses: OpenMP regions and MPI call
 * sites (rt_srcname.c), sampled addresses (sampling/samp_rows.c).
 * Built with libdw only (TALLY_HAVE_LIBDW).
 */
#ifndef TALLY_RT_SCOPES_H
#define TALLY_RT_SCOPES_H

#include <stdint.h>
#include <elfutils/libdw.h>

struct tly_rt_scope_unit;

/* The units indexed so far; zero-initialised is empty.  No lock: each
 * user keeps its own, under its own lock. */
struct tly_rt_scopes {
	struct { uintptr_t key; int32_t unit; } *of;   /* sorted by key: unit DIE's address */
	struct tly_rt_scope_unit **units;
	int32_t n, cap;
};

/* The DIEs of the function instances holding pc (the unit's addresses,
 * without the module's bias), innermost first, up to and including the
 * function they are inlined into: at most max of them, 0 when none.
 * encl (may be NULL): where that function's DIE is nested in another
 * function (GCC's outlined OpenMP bodies, main._omp_fn.0 inside main;
 * internal procedures), the enclosing function's DIE, and *has_encl 1. */
int tly_rt_scopes_at(struct tly_rt_scopes *x, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out, int max,
		     Dwarf_Die *encl, int *has_encl);
void tly_rt_scopes_free(struct tly_rt_scopes *x);

#endif
