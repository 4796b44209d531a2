/*
 * errors.c - PAPI error texts and the return path of public functions
 * (the per-thread failure detail is services/err_detail.c).
 */
#include "core/errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "core/lib.h"

/* Texts indexed by -code, from the one spec errors.def. */
static const char *const texts[PAPI_NUM_ERRORS] = {
#define TLY_ERROR(code, text) [-(code)] = text,
#include "core/errors.def"
#undef TLY_ERROR
};

/* errors.def has one line per code and no code outside the table. */
enum {
#define TLY_ERROR(code, text) tly_err_line_##code,
#include "core/errors.def"
#undef TLY_ERROR
	TLY_ERR_LINES
};
_Static_assert(TLY_ERR_LINES == PAPI_NUM_ERRORS,
	       "errors.def must hold one line per PAPI error code");
#define TLY_ERROR(code, text) \
	_Static_assert((code) <= 0 && (code) > -PAPI_NUM_ERRORS, #code " is outside the table");
#include "core/errors.def"
#undef TLY_ERROR

const char *tly_err_text(int code)
{
	if (code > 0 || code <= -PAPI_NUM_ERRORS)
		return NULL;
	return texts[-code];
}

int tly_api_ret(int code, const char *func)
{
	PAPI_debug_handler_t handler;
	int level;

	if (code >= PAPI_OK)
		return code;
	level = tly_debug_level();
	if (level == PAPI_QUIET)
		return code;
	handler = tly_debug_handler();
	if (handler)
		handler(code);
	else
		fprintf(stderr, "PAPI Error: %s: %s%s%s\n", func,
			tly_err_text(code) ? tly_err_text(code) : "Unknown error code",
			tly_err_detail()[0] ? ": " : "", tly_err_detail());
	/* PAPI_VERB_ESTOP is the user asking to stop at the first error. */
	if (level == PAPI_VERB_ESTOP)
		exit(EXIT_FAILURE);
	return code;
}
