/*
 * papi_hl_region.c - the PAPI 7 high-level region API: PAPI_hl_region_begin,
 * PAPI_hl_read, PAPI_hl_region_end, PAPI_hl_stop.
 *
 * Events.  $TALLY_EVENTS, else $PAPI_EVENTS (PAPI 7's variable), holds a
 * comma-separated list of event names (presets or natives such as
 * perf::TASK-CLOCK).  Names that are unknown or cannot be counted are
 * reported once on stderr and skipped; the others are counted.  Without
 * either variable the available presets among PAPI_TOT_CYC, PAPI_TOT_INS
 * and PAPI_FP_OPS are counted, or, when none is, the software events
 * perf::TASK-CLOCK, perf::PAGE-FAULTS and perf::CONTEXT-SWITCHES.  The list
 * is settled once per process, by the first PAPI_hl_region_begin.
 *
 * Per thread an event set is created and started lazily by the thread's
 * first PAPI_hl_region_begin (initialising the library if needed).  Its
 * counters run freely; begin and end read them and the region gets the
 * difference, so regions may nest and overlap.  Per region name per
 * thread Tally keeps: visits (completed begin..end pairs), inclusive real
 * time, and the summed counter differences.
 *
 * Calls and codes:
 * - NULL or empty region name: PAPI_EINVAL.
 * - PAPI_hl_region_end / PAPI_hl_read of a name that is not open in the
 *   thread: PAPI_EINVAL; in a thread with no running region event set:
 *   PAPI_ENOTRUN.  end closes the innermost open instance of that name.
 * - PAPI_hl_read stores, in the open region, the differences since its
 *   innermost begin ("reads", "last_read" in the summary).
 * - PAPI_hl_stop stops the calling thread's event set (open regions are
 *   discarded, with a warning) and writes the summary; PAPI_ENOEVNT when
 *   the thread has no running event set (PAPI 7's documented code).  A
 *   later begin in that thread starts counting again; totals continue.
 * - The region event set is separate from PAPI_start_counters and the
 *   rate calls, but PAPI lets one event set per component run in a thread:
 *   while the thread's region set runs (first begin .. PAPI_hl_stop),
 *   starting another set on the same component (PAPI_start_counters, a
 *   rate call, PAPI_start) returns PAPI_EISRUN, and a begin while such a
 *   set runs returns PAPI_EISRUN (retried at the next begin).
 *
 * Summary.  At exit (atexit) and at each PAPI_hl_stop the data of every
 * thread so far is written to $TALLY_OUTPUT_DIR (default: the current
 * directory) as tally_hl_<hostname>_<pid>.json (through a temporary file
 * and rename).  When that fails, one message says why and the JSON goes to
 * stderr instead.  PAPI_NO_WARNING or TALLY_QUIET silence the warnings.
 *
 * The JSON format (version 1, writer hl_region_out.c) is documented in
 * docs/hl-regions.md.
 */
#include "papi.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/hl_common.h"
#include "api/hl_region.h"
#include "core/errors.h"
#include "tally_shared.h"
#include "tally_shared.h"

#define HL_DEFAULT_PRESETS "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_FP_OPS"
#define HL_DEFAULT_SOFTWARE "perf::TASK-CLOCK,perf::PAGE-FAULTS,perf::CONTEXT-SWITCHES"

/* Process-wide state of the region API. */
static struct {
	pthread_mutex_t lock;       /* everything below */
	int configured;             /* events settled */
	struct tly_hl_events ev;
	struct tly_hl_thread *threads, *threads_tail;
	int exit_hook;              /* atexit registered */
	int eisrun_told;            /* the EISRUN refusal was said */
	int key_ok;
	pthread_key_t key;          /* thread-exit hook: stops the event set */
} hl = { .lock = PTHREAD_MUTEX_INITIALIZER };

static _Thread_local struct tly_hl_thread *hl_self;

/* ---- Event list -------------------------------------------------------- */

/* Try one named event in t's (not yet started) event set; on success it
 * becomes process event hl.ev.n.  `origin` names the variable the name came
 * from, NULL for the built-in defaults (which are skipped silently). */
static void try_event(struct tly_hl_thread *t, const char *name, const char *origin)
{
	int code, rc;

	if (hl.ev.n == TLY_HL_MAX_EVENTS) {
		if (origin)
			tly_hl_warn("%s: more than %d events; '%s' skipped", origin,
				    TLY_HL_MAX_EVENTS, name);
		return;
	}
	rc = PAPI_event_name_to_code(name, &code);
	if (rc != PAPI_OK) {
		if (origin)
			tly_hl_warn("%s: unknown event '%s' skipped (%s)", origin, name,
				    PAPI_strerror(rc));
		return;
	}
	for (int i = 0; i < hl.ev.n; i++)
		if (hl.ev.codes[i] == code)
			return; /* listed twice: count it once */
	rc = PAPI_add_event(t->evset, code);
	if (rc != PAPI_OK) {
		if (origin)
			tly_hl_warn("%s: event '%s' cannot be counted here, skipped (%s)", origin,
				    name, PAPI_strerror(rc));
		return;
	}
	hl.ev.codes[hl.ev.n] = code;
	snprintf(hl.ev.names[hl.ev.n], PAPI_MAX_STR_LEN, "%s", name);
	t->slot[hl.ev.n++] = t->nslots++;
}

/* Each comma-separated, blank-trimmed entry of `list`. */
static void try_list(struct tly_hl_thread *t, const char *list, const char *origin)
{
	char *copy = strdup(list), *save = NULL;

	if (!copy)
		return;
	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end = tok + strlen(tok);

		while (*tok == ' ' || *tok == '\t')
			tok++;
		while (end > tok && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n'))
			*--end = '\0';
		if (*tok)
			try_event(t, tok, origin);
	}
	free(copy);
}

/* Settle the process event list with the first thread's event set (under
 * hl.lock), so every name is checked against what this machine counts. */
static void configure_events(struct tly_hl_thread *t)
{
	const char *origin = "TALLY_EVENTS";
	const char *list = tly_setting_raw(TLY_SET_events);

	if (!list) {
		origin = "PAPI_EVENTS";
		list = tly_setting_raw(TLY_SET_papi_events);
	}
	if (list) {
		try_list(t, list, origin);
	} else {
		try_list(t, HL_DEFAULT_PRESETS, NULL);
		if (hl.ev.n == 0)
			try_list(t, HL_DEFAULT_SOFTWARE, NULL);
	}
	if (hl.ev.n == 0)
		tly_hl_warn("no countable events for PAPI_hl_region_*; regions record visits "
			    "and real time only");
	hl.configured = 1;
}

/* ---- Threads ----------------------------------------------------------- */

/* Add the settled events to a later thread's new event set. */
static void add_settled_events(struct tly_hl_thread *t)
{
	for (int i = 0; i < hl.ev.n; i++) {
		int rc = PAPI_add_event(t->evset, hl.ev.codes[i]);

		t->slot[i] = rc == PAPI_OK ? t->nslots++ : -1;
		if (rc != PAPI_OK)
			tly_hl_warn("thread %ld: event '%s' cannot be counted (%s); "
				    "it is null in this thread's summary",
				    (long)t->tid, hl.ev.names[i], PAPI_strerror(rc));
	}
}

static void write_summary_locked(void)
{
	tly_hl_write_summary(&hl.ev, hl.threads);
}

static void at_exit_summary(void)
{
	pthread_mutex_lock(&hl.lock);
	write_summary_locked();
	pthread_mutex_unlock(&hl.lock);
}

static void stop_thread_set(struct tly_hl_thread *t)
{
	tly_hl_drop_eventset(&t->evset);
	t->nslots = 0;
	t->depth = 0;
}

/* pthread key destructor: the thread is exiting, its set must not outlive
 * it (only the owning thread may stop it). */
static void thread_exit_hook(void *arg)
{
	struct tly_hl_thread *t = arg;

	pthread_mutex_lock(&t->lock);
	stop_thread_set(t);
	free(t->stack);
	t->stack = NULL;
	t->cap = 0;
	pthread_mutex_unlock(&t->lock);
}

/* The calling thread's record, created and listed on first use. */
static int thread_record(struct tly_hl_thread **out)
{
	struct tly_hl_thread *t = hl_self;

	if (!t) {
		t = calloc(1, sizeof *t);
		if (!t)
			return tly_err_set(PAPI_ENOMEM, "PAPI_hl_region_begin: out of memory");
		t->tid = gettid();
		t->evset = PAPI_NULL;
		pthread_mutex_init(&t->lock, NULL);
		pthread_mutex_lock(&hl.lock);
		if (hl.threads_tail)
			hl.threads_tail->next = t;
		else
			hl.threads = t;
		hl.threads_tail = t;
		if (!hl.exit_hook)
			hl.exit_hook = atexit(at_exit_summary) == 0;
		if (!hl.key_ok)
			hl.key_ok = pthread_key_create(&hl.key, thread_exit_hook) == 0;
		pthread_mutex_unlock(&hl.lock);
		hl_self = t;
	}
	*out = t;
	return PAPI_OK;
}

/* Create and start the thread's event set (first begin, or after stop). */
static int start_thread_set(struct tly_hl_thread *t)
{
	int rc = PAPI_create_eventset(&t->evset);

	if (rc != PAPI_OK)
		return rc;
	t->nslots = 0;
	pthread_mutex_lock(&hl.lock);
	if (!hl.configured)
		configure_events(t);
	else
		add_settled_events(t);
	pthread_mutex_unlock(&hl.lock);
	if (t->nslots > 0)
		rc = PAPI_start(t->evset);
	if (rc != PAPI_OK) {
		stop_thread_set(t);
		return rc;
	}
	if (hl.key_ok)
		(void)pthread_setspecific(hl.key, t);
	return PAPI_OK;
}

/* The calling thread's record with its event set running. */
static int thread_ready(struct tly_hl_thread **out)
{
	int rc = tly_hl_init();

	if (rc == PAPI_OK)
		rc = thread_record(out);
	if (rc == PAPI_OK && (*out)->evset == PAPI_NULL)
		rc = start_thread_set(*out);
	return rc;
}

/* Current counter values, indexed like hl.ev (0 where not counted). */
static int read_now(struct tly_hl_thread *t, long long *v)
{
	long long raw[TLY_HL_MAX_EVENTS] = { 0 };
	int rc = PAPI_OK;

	if (t->nslots > 0)
		rc = PAPI_read(t->evset, raw);
	if (rc != PAPI_OK)
		return rc;
	for (int i = 0; i < hl.ev.n && i < TLY_HL_MAX_EVENTS; i++)
		v[i] = t->slot[i] >= 0 ? raw[t->slot[i]] : 0;
	return PAPI_OK;
}

/* ---- Regions ----------------------------------------------------------- */

static unsigned name_hash(const char *s)
{
	return (unsigned)tly_fnv1a(TLY_FNV_BASIS, s, strlen(s));
}

/* The slot of `name` (hash h) in t's table: its region's, or the free
 * one it would take. */
static unsigned slot_of(const struct tly_hl_thread *t, const char *name, unsigned h)
{
	unsigned m = t->ntab - 1, k = h & m;

	while (t->tab[k].region && (t->tab[k].hash != h || strcmp(t->tab[k].region->name, name) != 0))
		k = (k + 1) & m;
	return k;
}

/* Room for one more region in t's table: 4x larger when it would be more
 * than half full, so a lookup stays O(1) whatever the number of names (a
 * fixed 64 chains made 80,000 names take 8.9 s).  -1 when out of memory. */
static int table_room(struct tly_hl_thread *t)
{
	unsigned n = t->ntab ? 4 * t->ntab : TLY_HL_SLOTS;
	struct tly_hl_slot *ns;

	if (2 * (t->nregions + 1) <= t->ntab)
		return 0;
	ns = calloc(n, sizeof *ns);
	if (!ns)
		return t->ntab && t->nregions + 1 < t->ntab ? 0 : -1;   /* fuller, slower, still right */
	for (unsigned i = 0; i < t->ntab; i++) {
		unsigned k = t->tab[i].hash & (n - 1);

		if (!t->tab[i].region)
			continue;
		while (ns[k].region)
			k = (k + 1) & (n - 1);
		ns[k] = t->tab[i];
	}
	free(t->tab);
	t->tab = ns;
	t->ntab = n;
	return 0;
}

#define HL_ARENA (64 * 1024)   /* bytes per chunk of region records */

/* A zeroed region record for a name of `len` characters, carved from the
 * thread's current chunk: one allocation per ~300 names instead of two per
 * name (the record and its name together, next to the previous ones).
 * Regions live until exit, so chunks are never freed; the first record of
 * each chunk points at its start.  NULL when out of memory. */
static struct tly_hl_region *region_alloc(struct tly_hl_thread *t, size_t len)
{
	size_t size = sizeof(struct tly_hl_region) + 2 * (size_t)hl.ev.n * sizeof(long long) + len + 1;
	struct tly_hl_region *r;

	size = (size + 15) & ~(size_t)15;
	if (size > t->arena_left) {
		if (size > HL_ARENA / 4)
			return calloc(1, size);   /* a very long name: its own record */
		if (!(t->arena = calloc(1, HL_ARENA)))
			return NULL;
		t->arena_left = HL_ARENA;
	}
	r = (struct tly_hl_region *)(void *)t->arena;
	t->arena += size;
	t->arena_left -= size;
	return r;
}

/* Region `name` of thread t, created when new (caller holds t->lock). */
static struct tly_hl_region *region_get(struct tly_hl_thread *t, const char *name)
{
	unsigned h = name_hash(name), k;
	struct tly_hl_region *r;

	if (t->ntab && t->tab[k = slot_of(t, name, h)].region)
		return t->tab[k].region;
	if (table_room(t) != 0)
		return NULL;
	r = region_alloc(t, strlen(name));
	if (!r)
		return NULL;
	r->name = (char *)(r->v + 2 * hl.ev.n);
	strcpy(r->name, name);
	r->values = r->v;
	r->last_read = r->v + hl.ev.n;
	r->hash = h;
	t->tab[slot_of(t, name, h)] = (struct tly_hl_slot){ h, r };
	t->nregions++;
	if (t->last)
		t->last->next = r;
	else
		t->first = r;
	t->last = r;
	return r;
}

static int push_open(struct tly_hl_thread *t, struct tly_hl_region *r)
{
	if (t->depth == t->cap) {
		int cap = t->cap ? 2 * t->cap : 16;
		struct tly_hl_open *s = realloc(t->stack, (size_t)cap * sizeof *s);

		if (!s)
			return PAPI_ENOMEM;
		t->stack = s;
		t->cap = cap;
	}
	t->stack[t->depth].region = r;
	return t->depth++;
}

static int check_name(const char *fn, const char *region)
{
	if (!region || !*region)
		return tly_err_set(PAPI_EINVAL, "%s: region name is NULL or empty", fn);
	return PAPI_OK;
}

/* A begin refused because the program's own event set runs on the same
 * component: said once per process, since the summary would otherwise be
 * empty without a word (the code alone is easy to leave unchecked, as in
 * Fortran's TALLYF_region_begin). */
static void say_eisrun(const char *region)
{
	int told;

	pthread_mutex_lock(&hl.lock);
	told = hl.eisrun_told;
	hl.eisrun_told = 1;
	pthread_mutex_unlock(&hl.lock);
	if (!told)
		tly_hl_warn("region '%s' not recorded: the thread's own event set is running (PAPI_EISRUN), and "
			    "one set per component runs at a time; stop it before the region, or measure "
			    "under tally-run (said once; later refusals return PAPI_EISRUN too)", region);
}

int PAPI_hl_region_begin(const char *region)
{
	struct tly_hl_thread *t = NULL;
	struct tly_hl_region *r;
	int rc = check_name("PAPI_hl_region_begin", region);
	int at;

	if (rc == PAPI_OK)
		rc = thread_ready(&t);
	if (rc == PAPI_EISRUN)
		say_eisrun(region);
	if (rc != PAPI_OK)
		return rc;
	pthread_mutex_lock(&t->lock);
	r = region_get(t, region);
	at = r ? push_open(t, r) : PAPI_ENOMEM;
	pthread_mutex_unlock(&t->lock);
	if (at < 0)
		return tly_err_set(PAPI_ENOMEM, "PAPI_hl_region_begin: out of memory");
	/* Read last, so the region's own bookkeeping is not measured. */
	t->stack[at].t0 = PAPI_get_real_nsec();
	rc = read_now(t, t->stack[at].v0);
	if (rc != PAPI_OK)
		t->depth--;
	return rc;
}

/* Innermost open instance of `region` in t, or -1. */
static int find_open(const struct tly_hl_thread *t, const char *region)
{
	for (int i = t->depth - 1; i >= 0; i--)
		if (strcmp(t->stack[i].region->name, region) == 0)
			return i;
	return -1;
}

/* Shared part of end and read: counters and time now, and the innermost
 * open instance of `region` (*at). */
static int sample_open(const char *fn, const char *region, struct tly_hl_thread **tp,
		       long long *v, long long *now, int *at)
{
	struct tly_hl_thread *t = hl_self;
	int rc = check_name(fn, region);

	if (rc != PAPI_OK)
		return rc;
	if (!t || t->evset == PAPI_NULL)
		return tly_err_set(PAPI_ENOTRUN, "%s: no region was begun in this thread", fn);
	/* Read first, so the lookup below is not measured. */
	rc = read_now(t, v);
	*now = PAPI_get_real_nsec();
	if (rc != PAPI_OK)
		return rc;
	*at = find_open(t, region);
	if (*at < 0)
		return tly_err_set(PAPI_EINVAL, "%s: region '%s' is not open in this thread", fn,
				   region);
	*tp = t;
	return PAPI_OK;
}

int PAPI_hl_read(const char *region)
{
	long long v[TLY_HL_MAX_EVENTS], now;
	struct tly_hl_thread *t;
	struct tly_hl_open *o;
	int at, rc = sample_open("PAPI_hl_read", region, &t, v, &now, &at);

	if (rc != PAPI_OK)
		return rc;
	o = &t->stack[at];
	pthread_mutex_lock(&t->lock);
	o->region->reads++;
	o->region->last_read_nsec = now - o->t0;
	for (int i = 0; i < hl.ev.n; i++)
		o->region->last_read[i] = v[i] - o->v0[i];
	pthread_mutex_unlock(&t->lock);
	return PAPI_OK;
}

int PAPI_hl_region_end(const char *region)
{
	long long v[TLY_HL_MAX_EVENTS], now;
	struct tly_hl_thread *t;
	struct tly_hl_open *o;
	int at, rc = sample_open("PAPI_hl_region_end", region, &t, v, &now, &at);

	if (rc != PAPI_OK)
		return rc;
	o = &t->stack[at];
	pthread_mutex_lock(&t->lock);
	o->region->visits++;
	o->region->real_nsec += now - o->t0;
	for (int i = 0; i < hl.ev.n; i++)
		o->region->values[i] += v[i] - o->v0[i];
	memmove(o, o + 1, (size_t)(t->depth - at - 1) * sizeof *o);
	t->depth--;
	pthread_mutex_unlock(&t->lock);
	return PAPI_OK;
}

int PAPI_hl_stop(void)
{
	struct tly_hl_thread *t = hl_self;

	if (!t || t->evset == PAPI_NULL)
		return tly_err_set(PAPI_ENOEVNT,
			"PAPI_hl_stop: no region event set is running in this thread");
	pthread_mutex_lock(&t->lock);
	if (t->depth > 0)
		tly_hl_warn("PAPI_hl_stop: %d open region(s) discarded (innermost '%s')", t->depth,
			    t->stack[t->depth - 1].region->name);
	stop_thread_set(t);
	pthread_mutex_unlock(&t->lock);
	at_exit_summary();
	return PAPI_OK;
}
