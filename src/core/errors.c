/*
 * errors.c - PAPI error texts and the per-thread failure detail.
 */
#include "core/errors.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "core/lib.h"

/* Why the calling thread's last call failed; per thread so concurrent
 * failures never overwrite each other. */
static _Thread_local char detail[TLY_ERR_DETAIL_LEN];
static _Thread_local int last_code;

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

int tly_err_set(int code, const char *fmt, ...)
{
	va_list ap;

	last_code = code;
	va_start(ap, fmt);
	vsnprintf(detail, sizeof detail, fmt, ap);
	va_end(ap);
	return code;
}

const char *tly_err_detail(void)
{
	return detail;
}

int tly_err_last_code(void)
{
	return last_code;
}

void tly_err_clear(void)
{
	detail[0] = '\0';
	last_code = PAPI_OK;
}

int tly_err_from_errno(int err)
{
	switch (err) {
	case 0:
		return PAPI_OK;
	case ENOMEM:
		return PAPI_ENOMEM;
	case EPERM:
	case EACCES:
		return PAPI_EPERM;
	case EINVAL:
		return PAPI_EINVAL;
	case ENOENT:
	case EOPNOTSUPP:
		return PAPI_ENOEVNT;
	case ENOSYS:
		return PAPI_ENOSUPP;
	default:
		return PAPI_ESYS;
	}
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
			detail[0] ? ": " : "", detail);
	/* PAPI_VERB_ESTOP is the user asking to stop at the first error. */
	if (level == PAPI_VERB_ESTOP)
		exit(EXIT_FAILURE);
	return code;
}
