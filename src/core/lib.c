/*
 * lib.c - library initialisation and shutdown, components, debug level.
 */
#include "core/lib.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "core/errors.h"
#include "core/eventset.h"
#include "core/native.h"
#include "core/presets.h"
#include "core/sysinfo.h"
#include "core/threads.h"

#define TLY_MAX_COMPONENTS 16

/* The library's one state struct.  `state` and the debug settings are read
 * on hot paths without the lock, hence atomics; everything else changes
 * only under `lock` (init, shutdown, component disabling). */
static struct {
	pthread_mutex_t lock;
	atomic_int state;
	atomic_int debug_level;
	PAPI_debug_handler_t _Atomic debug_handler;
	int user_disabled[TLY_MAX_COMPONENTS];
	/* deferred init (component.h): PENDING until first use; the init
	 * runs under `lock`, RUNNING guards against re-entry from it */
	atomic_int phase[TLY_MAX_COMPONENTS];
	PAPI_component_info_t info[TLY_MAX_COMPONENTS];
} lib = {
	.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
};

void tly_lib_lock(void)
{
	pthread_mutex_lock(&lib.lock);
}

void tly_lib_unlock(void)
{
	pthread_mutex_unlock(&lib.lock);
}

int tly_lib_state(void)
{
	return atomic_load_explicit(&lib.state, memory_order_acquire);
}

int tly_lib_check(void)
{
	if (tly_lib_state() == PAPI_NOT_INITED)
		return tly_err_set(PAPI_ENOINIT, "PAPI_library_init has not been called (or PAPI_shutdown was)");
	return PAPI_OK;
}

enum { PHASE_READY, PHASE_PENDING, PHASE_RUNNING };

static void init_component_now(int cidx);

/* Run a deferred component's init at its first use.  While another
 * thread runs it (RUNNING) a caller waits on the lock for it to end; the
 * thread running it re-enters freely (the lock is recursive) and finds
 * RUNNING, not PENDING. */
static void wake(int cidx)
{
	if (atomic_load_explicit(&lib.phase[cidx], memory_order_acquire) == PHASE_READY)
		return;
	tly_lib_lock();
	if (atomic_load_explicit(&lib.phase[cidx], memory_order_relaxed) == PHASE_PENDING) {
		atomic_store_explicit(&lib.phase[cidx], PHASE_RUNNING, memory_order_relaxed);
		init_component_now(cidx);
		atomic_store_explicit(&lib.phase[cidx], PHASE_READY, memory_order_release);
	}
	tly_lib_unlock();
}

int tly_cmp_pending(int cidx)
{
	if (cidx < 0 || cidx >= tly_num_components)
		return 0;
	return atomic_load_explicit(&lib.phase[cidx], memory_order_acquire) == PHASE_PENDING;
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
	return &lib.info[cidx];
}

int tly_cmp_check(int cidx)
{
	if (cidx < 0 || cidx >= tly_num_components)
		return tly_err_set(PAPI_ENOCMP, "component index %d is out of range (0..%d)", cidx,
				   tly_num_components - 1);
	wake(cidx);
	if (lib.info[cidx].disabled)
		return tly_err_set(PAPI_ECMP_DISABLED, "component %s is disabled: %s",
				   tly_components[cidx]->name, lib.info[cidx].disabled_reason);
	return PAPI_OK;
}

int tly_debug_level(void)
{
	return atomic_load_explicit(&lib.debug_level, memory_order_relaxed);
}

PAPI_debug_handler_t tly_debug_handler(void)
{
	return atomic_load(&lib.debug_handler);
}

void tly_set_debug_level(int level, PAPI_debug_handler_t handler)
{
	atomic_store(&lib.debug_level, level);
	atomic_store(&lib.debug_handler, handler);
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
		lib.user_disabled[cidx] = 1;
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

/* Presets map to CPU counters: they are component 0's.  Counted when the
 * info is asked for (PAPI_get_component_info), since counting resolves
 * every preset on the counters (core/presets.c). */
void tly_lib_count_presets(void)
{
	tly_lib_lock();
	if (tly_num_components > 0 && tly_lib_state() != PAPI_NOT_INITED)
		lib.info[0].num_preset_events = tly_presets_count_avail();
	tly_lib_unlock();
}

const char *tly_component_name(int cidx)
{
	if (cidx < 0 || cidx >= tly_num_components)
		return NULL;
	return tly_components[cidx]->name;
}

/* The component's identity, then its init unless deferred (or disabled). */
static void init_component(int cidx)
{
	const struct tly_component *c = tly_components[cidx];
	PAPI_component_info_t *info = &lib.info[cidx];

	memset(info, 0, sizeof *info);
	snprintf(info->name, sizeof info->name, "%s", c->name);
	snprintf(info->short_name, sizeof info->short_name, "%s", c->short_name);
	snprintf(info->description, sizeof info->description, "%s", c->description);
	snprintf(info->version, sizeof info->version, "%s", c->version);
	info->CmpIdx = cidx;
	if (lib.user_disabled[cidx]) {
		info->disabled = PAPI_ECMP_DISABLED;
		snprintf(info->disabled_reason, sizeof info->disabled_reason,
			 "disabled by PAPI_disable_component before PAPI_library_init");
		return;
	}
	if (c->deferred_init) {
		atomic_store_explicit(&lib.phase[cidx], PHASE_PENDING, memory_order_release);
		return;
	}
	init_component_now(cidx);
}

static void init_component_now(int cidx)
{
	const struct tly_component *c = tly_components[cidx];
	PAPI_component_info_t *info = &lib.info[cidx];
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

static int lib_init_locked(void)
{
	int rc = tly_sysinfo_init();

	if (rc != PAPI_OK)
		return rc;
	for (int i = 0; i < tly_num_components && i < TLY_MAX_COMPONENTS; i++)
		init_component(i);
	/* Presets resolve natives and try counting them, which needs the
	 * library to look initialised. */
	atomic_store_explicit(&lib.state, PAPI_LOW_LEVEL_INITED, memory_order_release);
	rc = tly_presets_init();
	if (rc != PAPI_OK)
		atomic_store(&lib.state, PAPI_NOT_INITED);
	return rc;
}

int PAPI_library_init(int version)
{
	int rc = PAPI_OK;

	if ((version & 0xffff0000) != PAPI_VER_CURRENT)
		return TLY_RET(tly_err_set(PAPI_EINVAL,
			"PAPI_library_init: caller built for PAPI %d.%d, library implements %d.%d",
			PAPI_VERSION_MAJOR(version), PAPI_VERSION_MINOR(version),
			PAPI_VERSION_MAJOR(PAPI_VERSION), PAPI_VERSION_MINOR(PAPI_VERSION)));
	tly_lib_lock();
	if (tly_lib_state() == PAPI_NOT_INITED) {
		rc = lib_init_locked();
		/* every machine says a malformed library setting, GPU or not (the
		 * cuda rows are otherwise read only where a GPU is) */
		tly_settings_say_library();
	}
	tly_lib_unlock();
	if (rc != PAPI_OK)
		return TLY_RET(rc);
	return PAPI_VER_CURRENT;
}

int PAPI_is_initialized(void)
{
	return tly_lib_state();
}

/* Record PAPI_thread_init in the init level. */
void tly_lib_mark_threaded(void)
{
	atomic_fetch_or(&lib.state, PAPI_THREAD_LEVEL_INITED);
}

void tly_lib_mark_high_level(void)
{
	atomic_fetch_or(&lib.state, PAPI_HIGH_LEVEL_INITED);
}

void PAPI_shutdown(void)
{
	tly_lib_lock();
	if (tly_lib_state() == PAPI_NOT_INITED) {
		tly_lib_unlock();
		return;
	}
	tly_evset_shutdown_all();
	tly_presets_shutdown();
	tly_native_shutdown();
	for (int i = 0; i < tly_num_components && i < TLY_MAX_COMPONENTS; i++) {
		int used = atomic_exchange(&lib.phase[i], PHASE_READY) == PHASE_READY;

		if (used && !lib.info[i].disabled && tly_components[i]->shutdown)
			tly_components[i]->shutdown();
		memset(&lib.info[i], 0, sizeof lib.info[i]);
	}
	tly_threads_shutdown();
	tly_sysinfo_shutdown();
	atomic_store(&lib.state, PAPI_NOT_INITED);
	tly_lib_unlock();
}
