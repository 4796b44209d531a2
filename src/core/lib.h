/*
 * lib.h - the library's state (PAPI_is_initialized's value) and its lock.
 */
#ifndef TALLY_CORE_LIB_H
#define TALLY_CORE_LIB_H

#include "papi.h"

/* PAPI_is_initialized() value; PAPI_NOT_INITED before PAPI_library_init. */
int tly_lib_state(void);
/* Set by PAPI_library_init and PAPI_shutdown (src/api/papi_library.c). */
void tly_lib_set_state(int state);
/* PAPI_OK when initialised, else sets the detail and returns PAPI_ENOINIT. */
int tly_lib_check(void);

/* Library-wide lock for rarely changed state (tables, registries). */
void tly_lib_lock(void);
void tly_lib_unlock(void);
void tly_lib_mark_threaded(void);
void tly_lib_mark_high_level(void);
#endif /* TALLY_CORE_LIB_H */
