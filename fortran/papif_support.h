/*
 * papif_support.h - helpers the generated Fortran wrappers call.
 *
 * A Fortran CHARACTER argument arrives as a pointer with no terminator plus
 * a hidden length appended after the explicit arguments (size_t since
 * gfortran 8, and the type other 64-bit compilers use).
 */
#ifndef TALLY_PAPIF_SUPPORT_H
#define TALLY_PAPIF_SUPPORT_H

#include <stddef.h>

#include "papi.h"

/* Size of the C buffers a wrapper converts through: the largest string the
 * C API writes (PAPI_HUGE_STR_LEN, e.g. PAPI_event_info_t.long_descr). */
#define TLY_FSTR_CAP PAPI_HUGE_STR_LEN

/* Copy Fortran input `src` (length `len`) into `dst` (capacity `cap`) as a C
 * string: it ends at the first NUL or after the last non-blank.  Returns 0,
 * or -1 when it did not fit (dst then holds the first cap-1 characters). */
int tly_fstr_in(char *dst, size_t cap, const char *src, size_t len);

/* Copy C string `src` into Fortran output `dst` of length `len`: at most len
 * characters, the rest blank-filled; nothing is written past len. */
void tly_fstr_out(char *dst, size_t len, const char *src);

#endif /* TALLY_PAPIF_SUPPORT_H */
