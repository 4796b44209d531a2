/*
 * rt_state.c - the process's measurement state: settings, events, the
 * list of thread records, and the start of measurement when the preload
 * library is loaded.
 */
#include "runtime/rt.h"

#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"
#include "passes/passes.h"

static struct tly_rt_proc proc = { .lock = PTHREAD_MUTEX_INITIALIZER };
static pthread_once_t proc_once = PTHREAD_ONCE_INIT;
/* Start-up runs once; code it calls (the counter library's components,
 * an OpenMP runtime initialising and calling the OMPT tool, an NVTX
 * injection) may call back into the runtime on the same thread.  Those
 * calls must not wait on the start-up they are part of: they see "not
 * measuring yet" instead. */
static atomic_int started;            /* start_once has returned */
static _Thread_local int in_start;    /* this thread runs start_once */

static const char *const default_hw[] = { "PAPI_TOT_CYC", "PAPI_TOT_INS" };
static const char *const default_sw[] = { "perf::TASK-CLOCK", "perf::PAGE-FAULTS",
					  "perf::CONTEXT-SWITCHES" };

static void describe(int i, int code)
{
	PAPI_event_info_t info;
	struct tly_rt_event_desc *d = &proc.ev[i];

	memset(&info, 0, sizeof info);
	PAPI_get_event_info(code, &info);
	snprintf(d->name, sizeof d->name, "%s", info.symbol);
	snprintf(d->units, sizeof d->units, "%s", info.units[0] ? info.units : "count");
	snprintf(d->descr, sizeof d->descr, "%s", info.long_descr[0] ? info.long_descr : info.short_descr);
	const PAPI_component_info_t *c = PAPI_get_component_info(info.component_index);
	snprintf(d->component, sizeof d->component, "%s", c ? c->name : "?");
}

static int add_event(const char *name, int quiet)
{
	int code, es = PAPI_NULL, ok;

	if (proc.nev == TLY_RT_MAX_EVENTS || PAPI_event_name_to_code(name, &code) != PAPI_OK
	    || PAPI_query_event(code) != PAPI_OK) {
		if (!quiet)
			tly_rt_log(1, "event '%s' cannot be counted here; left out", name);
		return 0;
	}
	/* the events must also be countable together */
	PAPI_create_eventset(&es);
	for (int i = 0; i < proc.nev; i++)
		PAPI_add_event(es, proc.codes[i]);
	ok = PAPI_add_event(es, code) == PAPI_OK;
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	if (!ok) {
		if (!quiet)
			tly_rt_log(1, "event '%s' cannot be counted with the others; left out", name);
		return 0;
	}
	proc.codes[proc.nev] = code;
	describe(proc.nev++, code);
	return 1;
}

static void choose_events(void)
{
	const char *list = proc.opt.raw.events;
	char name[256];

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
		tly_rt_log(1, "the counter library did not initialise; recording time only");
		return;
	}
	if (tly_pass_take(&list))  /* passes/: GPU metrics, multi-pass CPU events */
		return;
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");

		snprintf(name, sizeof name, "%.*s", (int)len, p);
		if (*name)
			add_event(name, 0);
		p += len + (p[len] == ',');
	}
	if (*list)
		return;
	for (size_t i = 0; i < sizeof default_hw / sizeof *default_hw; i++)
		add_event(default_hw[i], 1);
	if (!proc.nev)
		for (size_t i = 0; i < sizeof default_sw / sizeof *default_sw; i++)
			add_event(default_sw[i], 1);
}

static void read_cmdline(void)
{
	int fd = open("/proc/self/cmdline", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, proc.cmdline, sizeof proc.cmdline - 1) : -1;

	if (fd >= 0)
		close(fd);
	for (ssize_t i = 0; i < n - 1; i++)
		if (!proc.cmdline[i])
			proc.cmdline[i] = ' ';
	proc.cmdline[n > 0 ? n : 0] = '\0';
	extern char *program_invocation_short_name;
	snprintf(proc.exe, sizeof proc.exe, "%s", program_invocation_short_name);
}

static void start_measuring(void)
{
	tly_rt_clock_init();
	tly_rt_config_load(&proc.opt);
	read_cmdline();
	if (proc.opt.disable || tly_rt_name_in_list(proc.opt.raw.exclude, proc.exe))
		return;
	proc.will_measure = 1;
	proc.start_ns = tly_rt_now();
	proc.start_wall = (int64_t)time(NULL);
	choose_events();
	proc.active = 1;
	tly_rt_thread_new_self(0);
	tly_out_init();
	proc.overhead_ns = tly_rt_now() - proc.start_ns;
	tly_rt_exit_install();
}

static void start_once(void)
{
	in_start = 1;
	start_measuring();
	in_start = 0;
	atomic_store_explicit(&started, 1, memory_order_release);
}

struct tly_rt_proc *tly_rt_proc(void)
{
	return &proc;
}

int tly_rt_enabled(void)
{
	if (atomic_load_explicit(&started, memory_order_acquire))
		return proc.active;
	if (in_start)
		return 0;     /* called back from inside the start-up */
	pthread_once(&proc_once, start_once);
	return proc.active;
}

int tly_rt_will_measure(void)
{
	if (in_start)
		return proc.will_measure;
	return tly_rt_enabled();
}

__attribute__((constructor)) static void tly_rt_load(void)
{
	tly_rt_enabled();
}

void tly_rt_stop_all(void)
{
	pthread_mutex_lock(&proc.lock);
	if (!proc.end_ns) {
		proc.end_ns = tly_rt_now();
		proc.end_wall = (int64_t)time(NULL);
	}
	for (struct tly_rt_thread *t = proc.threads; t; t = t->next)
		tly_rt_thread_stop(t);
	pthread_mutex_unlock(&proc.lock);
}

