/*
 * errors.c - the debug level (PAPI_set_debug) and the return path of
 * public functions (the error texts are services/err_text.c, the
 * per-thread failure detail services/err_detail.c).
 */
#include "core/errors.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "papi.h"

/* The debug level and handler PAPI_set_debug chose, read on every failing
 * public call without a lock. */
static struct {
	atomic_int debug_level;
	PAPI_debug_handler_t _Atomic debug_handler;
} dbg;

int tly_debug_level(void)
{
	return atomic_load_explicit(&dbg.debug_level, memory_order_relaxed);
}

PAPI_debug_handler_t tly_debug_handler(void)
{
	return atomic_load(&dbg.debug_handler);
}

void tly_set_debug_level(int level, PAPI_debug_handler_t handler)
{
	atomic_store(&dbg.debug_level, level);
	atomic_store(&dbg.debug_handler, handler);
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
