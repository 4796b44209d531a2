/*
 * errors.h - the thread's last-error detail and PAPI error texts.
 *
 * Internal code returns PAPI_OK or a negative PAPI_E* code.  Whoever
 * detects a failure calls tly_err_set() with the code and a sentence that
 * says what failed and what to do; PAPI_perror prints it.
 */
#ifndef TALLY_CORE_ERRORS_H
#define TALLY_CORE_ERRORS_H

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
/* Fixed English text of a PAPI_E* code, NULL when the code is unknown. */
const char *tly_err_text(int code);
/* Return path of public functions: when code < 0 and PAPI_set_debug asked
 * for it, print the error (or call the user's handler); returns code. */
int tly_api_ret(int code, const char *func);
#define TLY_RET(code) tly_api_ret((code), __func__)

#endif /* TALLY_CORE_ERRORS_H */
