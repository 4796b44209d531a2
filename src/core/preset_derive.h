/*
 * preset_derive.h - derived preset values: the derived kinds by name, postfix
 * expressions compiled and evaluated (preset_derive.c).
 */
#ifndef TALLY_CORE_PRESET_DERIVE_H
#define TALLY_CORE_PRESET_DERIVE_H

#include "core/preset_types.h"

/* Value of a derived preset from its term values (terms[i] counts codes[i]). */
long long tly_preset_value(const struct tly_preset *p, const long long *terms);
/* Name of a derived kind ("NOT_DERIVED", "DERIVED_ADD"...); "" if unknown. */
const char *tly_derived_name(int derived);
/* Kind by name; -1 when unknown. */
int tly_derived_kind(const char *name);
/* Compile a postfix expression over nterms terms; PAPI_EINVAL when
 * malformed (detail says why, without file:line). */
int tly_postfix_compile(const char *expr, int nterms, struct tly_pf_prog *prog);
/* Run a compiled postfix program. */
long long tly_postfix_eval(const struct tly_pf_prog *prog, const long long *terms);

#endif /* TALLY_CORE_PRESET_DERIVE_H */
