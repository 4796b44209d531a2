/*
 * errors.h - PAPI error texts and the return path of public functions.
 * The thread's failure detail itself (tly_err_set ...) is a service the
 * library lends its components too: services/err_detail.h.
 */
#ifndef TALLY_CORE_ERRORS_H
#define TALLY_CORE_ERRORS_H

#include "services/err_detail.h"

/* Fixed English text of a PAPI_E* code, NULL when the code is unknown. */
const char *tly_err_text(int code);
/* Return path of public functions: when code < 0 and PAPI_set_debug asked
 * for it, print the error (or call the user's handler); returns code. */
int tly_api_ret(int code, const char *func);
#define TLY_RET(code) tly_api_ret((code), __func__)

#endif /* TALLY_CORE_ERRORS_H */
