/*
 * papi_errors.c - error texts, PAPI_perror (PAPI 7 and 3.5 forms), debug.
 */
#include "papi.h"

#include <stdio.h>
#include <string.h>

#include "core/errors.h"

char *PAPI_strerror(int errorCode)
{
	/* The API returns char *, but the text is constant: callers must not
	 * write to it (PAPI documents the same). */
	return (char *)tly_err_text(errorCode);
}

/* "msg: <text of the last error>: <what exactly failed>" */
void tally_papi7_perror(const char *msg)
{
	const char *detail = tly_err_detail();
	const char *text = tly_err_text(tly_err_last_code());

	if (msg && *msg)
		fprintf(stderr, "%s: ", msg);
	if (!detail[0])
		fprintf(stderr, "%s\n", text ? text : "No error");
	else
		fprintf(stderr, "%s: %s\n", text ? text : "Unknown error code", detail);
}

#undef PAPI_perror
void PAPI_perror(const char *msg)
{
	tally_papi7_perror(msg);
}

int tally_papi35_perror(int code, char *destination, int length)
{
	const char *text = tly_err_text(code);

	if (!text)
		return PAPI_EINVAL;
	if (!destination) {
		fprintf(stderr, "%s\n", text);
		return PAPI_OK;
	}
	if (length <= 0)
		return PAPI_EINVAL;
	snprintf(destination, (size_t)length, "%s", text);
	return PAPI_OK;
}

int PAPI_set_debug(int level)
{
	if (level < PAPI_QUIET || level > PAPI_VERB_ESTOP)
		return TLY_RET(tly_err_set(PAPI_EINVAL, "debug level %d is not valid", level));
	tly_set_debug_level(level, tly_debug_handler());
	return PAPI_OK;
}
