/*
 * evset_count.c - starting, stopping and reading event sets.
 *
 * Hot paths (tly_evset_values, start, stop) take no locks and allocate
 * nothing: one component read per part, then the event values.
 */
#include "core/evset_count.h"

#include <stdlib.h>
#include <string.h>

#include "core/errors.h"
#include "core/cmp_registry.h"
#include "core/native.h"
#include "core/overflow.h"
#include "core/overflow_sw.h"
#include "core/part.h"
#include "core/preset_derive.h"
#include "core/sysinfo.h"
#include "core/thread_rec.h"
#include "core/threads.h"

static void values_from(const struct tly_evset *es, const long long *raw, long long *values)
{
	for (int i = 0; i < es->nevents; i++) {
		const struct tly_ev *ev = &es->a->ev[i];

		if (!ev->preset || ev->derived == TLY_NOT_DERIVED) {
			values[i] = raw[ev->pos[0]];
			continue;
		}
		long long terms[TLY_MAX_TERMS];

		for (int t = 0; t < ev->nterms; t++)
			terms[t] = raw[ev->pos[t]];
		values[i] = tly_preset_value(ev->preset, terms);
	}
}

static void event_values(const struct tly_evset *es, long long *values)
{
	values_from(es, es->a->raw, values);
}

/* A read of a running set writes nothing the set shares: the raw counts
 * go to this call's stack, so two threads may read one set at once (the
 * docs say which operations allow that: docs/threads.md). */
int tly_evset_values(struct tly_evset *es, long long *values)
{
	long long raw[TLY_MAX_NATIVES];
	int rc;

	if (!(es->state & PAPI_RUNNING)) {
		memcpy(values, es->a->stopvals, (size_t)es->nevents * sizeof *values);
		return PAPI_OK;
	}
	rc = tly_parts_read_into(es, raw);
	if (rc != PAPI_OK)
		return rc;
	values_from(es, raw, values);
	return PAPI_OK;
}

/* Offsets that make each plain event read as `want` right now. */
static void apply_write(struct tly_evset *es, const long long *want)
{
	for (int i = 0; i < es->nevents; i++) {
		const struct tly_ev *ev = &es->a->ev[i];
		int n = ev->pos[0];

		/* A derived event has no single counter to set; PAPI_write
		 * sets the counters, so only plain events take values. */
		if (ev->preset && ev->derived != TLY_NOT_DERIVED)
			continue;
		es->a->offset[n] += want[i] - es->a->raw[n];
		es->a->raw[n] = want[i];
	}
	es->has_offset = 1;
}

static int claim_thread(struct tly_evset *es, struct tly_thread *t)
{
	for (int i = 0; i < es->nparts; i++) {
		int c = es->a->part[i].cidx;

		if (c >= TLY_THREAD_MAX_RUNNING)
			continue;
		if (t->running[c] && t->running[c] != es)
			return tly_err_set(PAPI_EISRUN,
				"event set %d is already running in this thread for component %s; stop it first",
				t->running[c]->id, tly_cmp(c)->name);
	}
	for (int i = 0; i < es->nparts; i++)
		if (es->a->part[i].cidx < TLY_THREAD_MAX_RUNNING)
			t->running[es->a->part[i].cidx] = es;
	es->runner = t;
	return PAPI_OK;
}

static void release_thread(struct tly_evset *es)
{
	struct tly_thread *t = es->runner;

	if (!t)
		return;
	/* claim_thread took one slot per part */
	for (int i = 0; i < es->nparts; i++) {
		int c = es->a->part[i].cidx;

		if (c < TLY_THREAD_MAX_RUNNING && t->running[c] == es)
			t->running[c] = NULL;
	}
	es->runner = NULL;
}

int tly_evset_start(struct tly_evset *es)
{
	struct tly_thread *t;
	int rc;

	if (es->state & PAPI_RUNNING)
		return tly_err_set(PAPI_EISRUN, "event set %d is already running", es->id);
	if (!es->nevents)
		return tly_err_set(PAPI_EINVAL, "event set %d has no events to start", es->id);
	t = tly_thread_self();
	if (!t)
		return tly_err_set(PAPI_ENOMEM, "cannot register the calling thread");
	rc = claim_thread(es, t);
	if (rc != PAPI_OK)
		return rc;
	tly_evset_clear_offsets(es);
	rc = tly_parts_start(es);
	if (rc == PAPI_OK && (es->state & (PAPI_OVERFLOWING | PAPI_PROFILING))) {
		rc = tly_ovf_sw_start(es);
		if (rc != PAPI_OK)
			tly_parts_stop(es);
	}
	if (rc != PAPI_OK) {
		release_thread(es);
		return rc;
	}
	if (es->has_pending) {
		/* the counters start at 0: raw is what apply_write offsets */
		memset(es->a->raw, 0, (size_t)es->nnative * sizeof es->a->raw[0]);
		apply_write(es, es->a->pending);
		es->has_pending = 0;
	}
	es->state = (es->state & ~PAPI_STOPPED) | PAPI_RUNNING;
	return PAPI_OK;
}

int tly_evset_stop(struct tly_evset *es, long long *values)
{
	int rc;

	if (!(es->state & PAPI_RUNNING))
		return tly_err_set(PAPI_ENOTRUN, "event set %d is not running", es->id);
	/* read, then stop: while the counters run, a user-space read (rdpmc)
	 * costs no system call; after the disable it would take a read(2)
	 * (measured in the arm64 guest: user+kernel start+stop 6473 -> 8416
	 * instructions, user-only 795 -> 770) */
	tly_ovf_sw_stop(es);
	rc = tly_parts_read(es);
	if (rc == PAPI_OK) {
		event_values(es, es->a->stopvals);
		if (es->state & (PAPI_OVERFLOWING | PAPI_PROFILING))
			tly_ovf_sw_flush(es);
	}
	tly_parts_stop(es);
	release_thread(es);
	es->state = (es->state & ~PAPI_RUNNING) | PAPI_STOPPED;
	if (rc == PAPI_OK && values)
		memcpy(values, es->a->stopvals, (size_t)es->nevents * sizeof *values);
	return rc;
}

/* Only what a later read or stop uses: stopvals are read while stopped
 * (a stop overwrites them), ovf_last only by software overflow. */
int tly_evset_reset(struct tly_evset *es)
{
	es->has_pending = 0;
	if (es->state & (PAPI_OVERFLOWING | PAPI_PROFILING))
		memset(es->a->ovf_last, 0, (size_t)es->nevents * sizeof es->a->ovf_last[0]);
	if (!(es->state & PAPI_RUNNING)) {
		memset(es->a->stopvals, 0, (size_t)es->nevents * sizeof es->a->stopvals[0]);
		return PAPI_OK;
	}
	return tly_parts_reset(es);
}

int tly_evset_write(struct tly_evset *es, const long long *values)
{
	int rc;

	if (!(es->state & PAPI_RUNNING)) {
		memcpy(es->a->pending, values, (size_t)es->nevents * sizeof *values);
		memcpy(es->a->stopvals, values, (size_t)es->nevents * sizeof *values);
		es->has_pending = 1;
		return PAPI_OK;
	}
	rc = tly_parts_read(es);
	if (rc == PAPI_OK)
		apply_write(es, values);
	return rc;
}

int tly_evset_apply_opts(struct tly_evset *es)
{
	if (es->state & PAPI_RUNNING)
		return tly_err_set(PAPI_EISRUN, "event set %d is running; stop it before changing options", es->id);
	return tly_parts_set_opts(es, &es->opts);
}

int tly_evset_try_natives(const int *codes, int n)
{
	struct tly_evset *es = calloc(1, sizeof *es);
	struct tly_evset_arrays *a = calloc(1, sizeof *a);
	int rc = PAPI_OK;

	if (!es || !a) {
		free(es);
		free(a);
		return tly_err_set(PAPI_ENOMEM, "out of memory");
	}
	es->a = a;
	if (n > TLY_MAX_NATIVES)
		n = TLY_MAX_NATIVES;
	es->id = -1;
	es->cidx = -1;
	for (int i = 0; i < n && rc == PAPI_OK; i++) {
		rc = tly_native_get(codes[i], &es->a->native_cidx[i], NULL, NULL, 0);
		es->a->native[i] = codes[i];
		es->nnative = i + 1;
	}
	if (rc == PAPI_OK) {
		tly_evset_default_opts(&es->opts, es->a->native_cidx[0]);
		rc = tly_parts_update(es);
	}
	for (int p = 0; p < es->nparts; p++)
		tly_part_free(&es->a->part[p]);
	free(a);
	free(es);
	return rc;
}
