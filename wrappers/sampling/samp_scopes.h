/*
 * samp_scopes.h - a compilation unit's functions and inlined instances,
 * indexed once, for naming sampled addresses (samp_scopes.c).
 */
#ifndef TALLY_SAMP_SCOPES_H
#define TALLY_SAMP_SCOPES_H

#include <elfutils/libdw.h>

#include "sampling/samp.h"

/* The units indexed so far; zero-initialised is empty. */
struct tly_samp_scopes {
	struct tly_samp_map of;   /* (unit DIE's address, 0) -> units[] */
	struct unit **units;
	int32_t n, cap;
};

/* The DIEs of the function instances holding pc (the unit's addresses,
 * without the module's bias), innermost first, up to and including the
 * function they are inlined into: at most max of them, 0 when none. */
int tly_samp_scopes_at(struct tly_samp_scopes *x, Dwarf_Die *cu, Dwarf_Addr pc, Dwarf_Die *out, int max);
void tly_samp_scopes_free(struct tly_samp_scopes *x);

#endif
