/*
 * cmp_registry.h - the component registry: components by index, their
 * info, deferred init at first use (component.h, deferred_init).
 */
#ifndef TALLY_CORE_CMP_REGISTRY_H
#define TALLY_CORE_CMP_REGISTRY_H

#include "papi.h"
#include "components/component.h"

/* Component by index; NULL when cidx is out of range.  tly_cmp,
 * tly_cmp_info and tly_cmp_check run a deferred component's init first
 * (component.h, deferred_init). */
const struct tly_component *tly_cmp(int cidx);
/* Mutable info of a component (owned by the registry). */
PAPI_component_info_t *tly_cmp_info(int cidx);
/* PAPI_OK, PAPI_ENOCMP (bad index) or PAPI_ECMP_DISABLED. */
int tly_cmp_check(int cidx);
/* 1 while a deferred component has not been used yet (its init not run). */
int tly_cmp_pending(int cidx);
/* PAPI_disable_component: only before init. */
int tly_lib_disable_component(int cidx);

/* PAPI_library_init: every component's identity, then its init unless
 * deferred or disabled (call under the library lock). */
void tly_cmp_init_all(void);
/* The presets available, counted as component 0's. */
void tly_cmp_set_preset_count(int n);
/* PAPI_shutdown: shut down the components that were used, clear all info. */
void tly_cmp_shutdown_all(void);
#endif /* TALLY_CORE_CMP_REGISTRY_H */
