/*
 * cmp_registry.c - the component registry: each component's info, the
 * user's disabling before init, and deferred init at first use
 * (component.h).  Below everything of the core that asks for a
 * component; the components themselves come from the build's list
 * (generated/components_list.c).
 */
#include "core/cmp_registry.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/errors.h"
#include "core/lib.h"
#include "tally_shared.h"

#define TLY_MAX_COMPONENTS 16

/* The registry's one state struct; it changes only under the library's
 * lock (init, shutdown, component disabling, a deferred init). */
static struct {
	int user_disabled[TLY_MAX_COMPONENTS];
	/* deferred init (component.h): PENDING until first use; the init
	 * runs under `lock`, RUNNING guards against re-entry from it */
	atomic_int phase[TLY_MAX_COMPONENTS];
	PAPI_component_info_t info[TLY_MAX_COMPONENTS];
} reg;

enum { PHASE_READY, PHASE_PENDING, PHASE_RUNNING };

static void init_component_now(int cidx);

/* Run a deferred component's init at its first use.  While another
 * thread runs it (RUNNING) a caller waits on the lock for it to end; the
 * thread running it re-enters freely (the lock is recursive) and finds
 * RUNNING, not PENDING. */
static void wake(int cidx)
{
	if (atomic_load_explicit(&reg.phase[cidx], memory_order_acquire) == PHASE_READY)
		return;
	tly_lib_lock();
	if (atomic_load_explicit(&reg.phase[cidx], memory_order_relaxed) == PHASE_PENDING) {
		atomic_store_explicit(&reg.phase[cidx], PHASE_RUNNING, memory_order_relaxed);
		init_component_now(cidx);
		atomic_store_explicit(&reg.phase[cidx], PHASE_READY, memory_order_release);
	}
	tly_lib_unlock();
}

int tly_cmp_pending(int cidx)
{
	if (cidx < 0 || cidx >= tly_num_components)
		return 0;
	return atomic_load_explicit(&reg.phase[cidx], memory_order_acquire) == PHASE_PENDING;
}

const struct tly_component *tly_cmp(int cidx)
{
	if (cidx < 0 || cidx >= tly_num_components)
		return NULL;
	wake(cidx);
	return tly_components[cidx];
}

PAPI_component_info_t *tly_cmp_info(int cidx)
{
	if (cidx < 0 || cidx >= tly_num_components)
		return NULL;
	wake(cidx);
	return &reg.info[cidx];
}

int tly_cmp_check(int cidx)
{
	if (cidx < 0 || cidx >= tly_num_components)
		return tly_err_set(PAPI_ENOCMP, "component index %d is out of range (0..%d)", cidx,
				   tly_num_components - 1);
	wake(cidx);
	if (reg.info[cidx].disabled)
		return tly_err_set(PAPI_ECMP_DISABLED, "component %s is disabled: %s",
				   tly_components[cidx]->name, reg.info[cidx].disabled_reason);
	return PAPI_OK;
}

int tly_lib_disable_component(int cidx)
{
	int rc = PAPI_OK;

	tly_lib_lock();
	if (tly_lib_state() != PAPI_NOT_INITED)
		rc = tly_err_set(PAPI_ENOINIT, "components can only be disabled before PAPI_library_init");
	else if (cidx < 0 || cidx >= tly_num_components || cidx >= TLY_MAX_COMPONENTS)
		rc = tly_err_set(PAPI_ENOCMP, "component index %d is out of range", cidx);
	else
		reg.user_disabled[cidx] = 1;
	tly_lib_unlock();
	return rc;
}

/* Natives a component offers (PAPI_component_info_t.num_native_events). */
static int count_natives(const struct tly_component *c)
{
	uint64_t tok = 0;
	int n = 0;

	if (!c->ntv_enum || c->ntv_enum(&tok, PAPI_ENUM_FIRST) != PAPI_OK)
		return 0;
	do
		n++;
	while (c->ntv_enum(&tok, PAPI_ENUM_EVENTS) == PAPI_OK);
	return n;
}

/* The component's identity, then its init unless deferred (or disabled). */
static void init_component(int cidx)
{
	const struct tly_component *c = tly_components[cidx];
	PAPI_component_info_t *info = &reg.info[cidx];

	memset(info, 0, sizeof *info);
	snprintf(info->name, sizeof info->name, "%s", c->name);
	snprintf(info->short_name, sizeof info->short_name, "%s", c->short_name);
	snprintf(info->description, sizeof info->description, "%s", c->description);
	snprintf(info->version, sizeof info->version, "%s", c->version);
	info->CmpIdx = cidx;
	if (reg.user_disabled[cidx]) {
		info->disabled = PAPI_ECMP_DISABLED;
		snprintf(info->disabled_reason, sizeof info->disabled_reason,
			 "disabled by PAPI_disable_component before PAPI_library_init");
		return;
	}
	if (c->deferred_init) {
		atomic_store_explicit(&reg.phase[cidx], PHASE_PENDING, memory_order_release);
		return;
	}
	init_component_now(cidx);
}

static void init_component_now(int cidx)
{
	const struct tly_component *c = tly_components[cidx];
	PAPI_component_info_t *info = &reg.info[cidx];
	int rc = c->init(info);

	if (rc == PAPI_OK && !info->disabled)
		info->num_native_events = count_natives(c);
	if (rc != PAPI_OK && info->disabled == PAPI_OK) {
		info->disabled = rc;
		if (!info->disabled_reason[0])
			snprintf(info->disabled_reason, sizeof info->disabled_reason, "%s",
				 tly_err_detail()[0] ? tly_err_detail() : tly_err_text(rc));
	}
}

void tly_cmp_init_all(void)
{
	for (int i = 0; i < tly_num_components && i < TLY_MAX_COMPONENTS; i++)
		init_component(i);
}

void tly_cmp_set_preset_count(int n)
{
	/* Presets map to CPU counters: they are component 0's. */
	if (tly_num_components > 0)
		reg.info[0].num_preset_events = n;
}

void tly_cmp_shutdown_all(void)
{
	for (int i = 0; i < tly_num_components && i < TLY_MAX_COMPONENTS; i++) {
		int used = atomic_exchange(&reg.phase[i], PHASE_READY) == PHASE_READY;

		if (used && !reg.info[i].disabled && tly_components[i]->shutdown)
			tly_components[i]->shutdown();
		memset(&reg.info[i], 0, sizeof reg.info[i]);
	}
}
