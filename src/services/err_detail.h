/*
 * err_detail.h - the calling thread's last failure: a PAPI_E* code and a
 * sentence that says what failed and what to do.
 *
 * Internal code returns PAPI_OK or a negative PAPI_E* code.  Whoever
 * detects a failure calls tly_err_set() with the code and that sentence;
 * PAPI_perror and the runtime print it (tly_err_detail, tally_shared.h).
 * Components report their failures through this header alone.
 */
#ifndef TALLY_SERVICES_ERR_DETAIL_H
#define TALLY_SERVICES_ERR_DETAIL_H

#include <errno.h>

#include "tally_shared.h"   /* tly_err_detail(), shared with the runtime */

#define TLY_ERR_DETAIL_LEN 512

/* Record a detail string for this thread's last failure; returns `code`. */
int tly_err_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tly_err_clear(void);
/* Code passed with the thread's last tly_err_set (PAPI_OK when none). */
int tly_err_last_code(void);
/* Map errno (positive) from a system call to a PAPI_E* code. */
int tly_err_from_errno(int err);

#endif /* TALLY_SERVICES_ERR_DETAIL_H */
