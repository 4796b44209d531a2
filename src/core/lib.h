/*
 * lib.h - library-wide state: initialisation, components, options.
 */
#ifndef TALLY_CORE_LIB_H
#define TALLY_CORE_LIB_H

#include "papi.h"
#include "components/component.h"

/* PAPI_is_initialized() value; PAPI_NOT_INITED before PAPI_library_init. */
int tly_lib_state(void);
/* PAPI_OK when initialised, else sets the detail and returns PAPI_ENOINIT. */
int tly_lib_check(void);
/* Component by index; NULL when cidx is out of range.  tly_cmp,
 * tly_cmp_info and tly_cmp_check run a deferred component's init first
 * (component.h, deferred_init). */
const struct tly_component *tly_cmp(int cidx);
/* Mutable info of a component (owned by the library). */
PAPI_component_info_t *tly_cmp_info(int cidx);
/* PAPI_OK, PAPI_ENOCMP (bad index) or PAPI_ECMP_DISABLED. */
int tly_cmp_check(int cidx);
/* 1 while a deferred component has not been used yet (its init not run). */
int tly_cmp_pending(int cidx);
/* Debug level set by PAPI_set_debug (PAPI_QUIET...). */
int tly_debug_level(void);
void tly_set_debug_level(int level, PAPI_debug_handler_t handler);
PAPI_debug_handler_t tly_debug_handler(void);

/* Library-wide lock for rarely changed state (tables, registries). */
void tly_lib_lock(void);
void tly_lib_unlock(void);
/* Component 0's num_preset_events, counted now (resolves every preset). */
void tly_lib_count_presets(void);
/* PAPI_disable_component: only before init. */
int tly_lib_disable_component(int cidx);
void tly_lib_mark_threaded(void);
void tly_lib_mark_high_level(void);
#endif /* TALLY_CORE_LIB_H */
