/*
 * err_text.c - the fixed English text of each PAPI error code, from the
 * one spec errors.def: lent to the components (a message naming a code)
 * and used by PAPI_strerror and the public functions' return path.
 */
#include "services/err_text.h"

#include "papi.h"

/* Texts indexed by -code, from the one spec errors.def. */
static const char *const texts[PAPI_NUM_ERRORS] = {
#define TLY_ERROR(code, text) [-(code)] = text,
#include "services/errors.def"
#undef TLY_ERROR
};

/* errors.def has one line per code and no code outside the table. */
enum {
#define TLY_ERROR(code, text) tly_err_line_##code,
#include "services/errors.def"
#undef TLY_ERROR
	TLY_ERR_LINES
};
_Static_assert(TLY_ERR_LINES == PAPI_NUM_ERRORS,
	       "errors.def must hold one line per PAPI error code");
#define TLY_ERROR(code, text) \
	_Static_assert((code) <= 0 && (code) > -PAPI_NUM_ERRORS, #code " is outside the table");
#include "services/errors.def"
#undef TLY_ERROR

const char *tly_err_text(int code)
{
	if (code > 0 || code <= -PAPI_NUM_ERRORS)
		return NULL;
	return texts[-code];
}
