/*
 * hl_common.h - helpers shared by the high-level APIs (PAPI 3.5 counters,
 * rate calls, PAPI 7 regions).  Internal: never installed.
 */
#ifndef TALLY_API_HL_COMMON_H
#define TALLY_API_HL_COMMON_H

#include "papi.h"

/*
 * Who owns the calling thread's "high-level counters" slot.  PAPI 3.5 had
 * one such slot per thread, shared by PAPI_start_counters and the rate
 * calls; Tally keeps that rule so the two APIs never fight over one event
 * set: while one owns the slot the other is refused (see each API for the
 * code it returns).  The region API has its own event set and no slot.
 */
enum tly_hl_owner {
	TLY_HL_NONE = 0,
	TLY_HL_COUNTERS,  /* PAPI_start_counters ... PAPI_stop_counters */
	TLY_HL_RATE       /* first rate call ... PAPI_rate_stop */
};

/* Initialise the library when nobody has (PAPI_library_init with
 * PAPI_VER_CURRENT), as the high-level calls do implicitly.  Thread-safe. */
int tly_hl_init(void);

enum tly_hl_owner tly_hl_owner(void);
void tly_hl_set_owner(enum tly_hl_owner owner);

/* Destroy an event set the high-level code created, whatever its state;
 * errors are ignored (this only runs on failure and teardown paths). */
void tly_hl_drop_eventset(int *evset);

/* 1 when PAPI_NO_WARNING or TALLY_QUIET is set (non-empty, not "0"). */
int tly_hl_quiet(void);
/* Warning on stderr prefixed "tally: ", unless tly_hl_quiet(). */
void tly_hl_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* TALLY_API_HL_COMMON_H */
