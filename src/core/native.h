/*
 * native.h - the process-wide table of native events.
 *
 * A native event code is PAPI_NATIVE_MASK | index into this table; an entry
 * records the component, the component's token and the canonical name.
 * Entries are created on first lookup or enumeration and live until
 * PAPI_shutdown.  All functions are thread-safe.
 */
#ifndef TALLY_CORE_NATIVE_H
#define TALLY_CORE_NATIVE_H

#include <stdint.h>
#include "papi.h"

/* Name -> code (interning it).  Names may carry a "component:::" prefix.
 * PAPI_ENOEVNT for unknown names, PAPI_ECMP_DISABLED when the only
 * component that knows it is disabled. */
int tly_native_lookup(const char *name, int *code);
/* The same for the presets: a name without prefix is looked up only in
 * the components already initialised (presets never wake a deferred one,
 * component.h). */
int tly_native_lookup_awake(const char *name, int *code);
/* Code -> entry.  PAPI_ENOEVNT when the code is not a known native. */
int tly_native_get(int code, int *cidx, uint64_t *tok, char *name, size_t len);
/* PAPI_enum_event / PAPI_enum_cmp_event over natives (cidx < 0: all). */
int tly_native_enum(int *code, int modifier, int cidx);
/* Fill info for a native code. */
int tly_native_info(int code, PAPI_event_info_t *info);
void tly_native_shutdown(void);

#endif /* TALLY_CORE_NATIVE_H */
