/*
 * errors.h - the debug level and the return path of public functions;
 * with the error texts (services/err_text.h).
 * The thread's failure detail itself (tly_err_set ...) is a service the
 * library lends its components too: services/err_detail.h.
 */
#ifndef TALLY_CORE_ERRORS_H
#define TALLY_CORE_ERRORS_H

#include "papi.h"
#include "services/err_detail.h"
#include "services/err_text.h"

/* Return path of public functions: when code < 0 and PAPI_set_debug asked
 * for it, print the error (or call the user's handler); returns code. */
int tly_api_ret(int code, const char *func);
/* Debug level set by PAPI_set_debug (PAPI_QUIET...). */
int tly_debug_level(void);
void tly_set_debug_level(int level, PAPI_debug_handler_t handler);
PAPI_debug_handler_t tly_debug_handler(void);
#define TLY_RET(code) tly_api_ret((code), __func__)

#endif /* TALLY_CORE_ERRORS_H */
