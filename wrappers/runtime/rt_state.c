/*
 * rt_state.c - the start of measurement when the preload library is
 * loaded (or at a thread's first call into it, tly_rt_self_slow): settings,
 * events, the first thread's record, the exit paths.  It fills the
 * process's state (rt_proc.c) and calls every other file of the runtime;
 * none calls it.
 */
#include "runtime/rt.h"
#include "runtime/rt_helper.h"

#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "papi.h"
#include "tally.h"
#include "runtime/rt_event_msg.h"
#include "runtime/rt_parts.h"
#include "runtime/rt_srcname.h"
#include "runtime/rt_writer.h"
#include "tally_shared.h"

static pthread_once_t proc_once = PTHREAD_ONCE_INIT;
/* Start-up runs once; code it calls (the counter library's components,
 * an OpenMP runtime initialising and calling the OMPT tool, an NVTX
 * injection) may call back into the runtime on the same thread.  Those
 * calls must not wait on the start-up they are part of: they see "not
 * measuring yet" instead. */
static atomic_int started;            /* start_once has returned */
static _Thread_local int in_start;    /* this thread runs start_once */

static const char *const default_hw[] = { "PAPI_TOT_CYC", "PAPI_TOT_INS" };
/* Where the CPU has no counters: the kernel's own accounting of each
 * thread (the thread component), not perf's software events of the same
 * meaning.  A thread with perf events of its own makes the kernel switch
 * their context with the thread at every context switch: +1.0 us a switch
 * with three of them (bench_switch_cost), 5-8% of LULESH's time with two
 * threads on one core (issue 48).  These put nothing on the thread, and
 * count user and kernel mode alike (a context switch happens in the
 * kernel).  perf's are the fall-back where that component is not built. */
static const char *const default_sw[] = { "thread:::CPU-TIME", "thread:::PAGE-FAULTS",
					  "thread:::CONTEXT-SWITCHES" };
static const char *const fallback_sw[] = { "perf::TASK-CLOCK", "perf::PAGE-FAULTS",
					   "perf::CONTEXT-SWITCHES:k=1" };

static void describe(int i, int code)
{
	struct tly_rt_proc *proc = tly_rt_proc();
	PAPI_event_info_t info;
	struct tly_rt_event_desc *d = &proc->ev[i];

	memset(&info, 0, sizeof info);
	PAPI_get_event_info(code, &info);
	snprintf(d->name, sizeof d->name, "%s", info.symbol);
	snprintf(d->units, sizeof d->units, "%s", info.units[0] ? info.units : "count");
	snprintf(d->descr, sizeof d->descr, "%s", info.long_descr[0] ? info.long_descr : info.short_descr);
	/* its name only: PAPI_get_component_info(0) would resolve every preset */
	const char *c = tally_component_name(info.component_index);
	snprintf(d->component, sizeof d->component, "%s", c ? c : "?");
}

static int add_event(const char *name, int quiet)
{
	struct tly_rt_proc *proc = tly_rt_proc();
	int code, es = PAPI_NULL, ok;

	if (proc->nev == TLY_RT_MAX_EVENTS) {
		if (!quiet)
			tly_rt_log_job(1, "event '%s' left out: the runtime records at most %d events per thread",
				       name, TLY_RT_MAX_EVENTS);
		return 0;
	}
	if (PAPI_event_name_to_code(name, &code) != PAPI_OK || PAPI_query_event(code) != PAPI_OK) {
		if (!quiet)
			tly_rt_event_left_out(name);
		return 0;
	}
	/* the events must also be countable together */
	PAPI_create_eventset(&es);
	for (int i = 0; i < proc->nev; i++)
		PAPI_add_event(es, proc->codes[i]);
	ok = PAPI_add_event(es, code) == PAPI_OK;
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	if (!ok) {
		if (!quiet)
			tly_rt_log_job(1, "event '%s' cannot be counted with the others; left out", name);
		return 0;
	}
	proc->codes[proc->nev] = code;
	describe(proc->nev++, code);
	return 1;
}

static void choose_events(void)
{
	struct tly_rt_proc *proc = tly_rt_proc();
	const char *list = proc->opt.raw.events;
	char name[256];

	if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) {
		tly_rt_log_job(1, "the counter library did not initialise; recording time only");
		return;
	}
	if (tly_rt_parts_take_events(&list))  /* passes/: GPU metrics, multi-pass CPU events */
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
	if (!proc->nev)
		for (size_t i = 0; i < sizeof default_sw / sizeof *default_sw; i++)
			add_event(default_sw[i], 1);
	if (!proc->nev)
		for (size_t i = 0; i < sizeof fallback_sw / sizeof *fallback_sw; i++)
			add_event(fallback_sw[i], 1);
}

/* The command line (arguments joined by spaces), the program's name and,
 * for an interpreter, the script or module it runs ("python3 -m
 * torch.distributed.run" runs "torch.distributed.run", "python3
 * /usr/bin/torchrun" runs "torchrun"): launchers written in Python are
 * excluded by that name. */
static void read_cmdline(char *script, size_t len)
{
	struct tly_rt_proc *proc = tly_rt_proc();
	int fd = open("/proc/self/cmdline", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, proc->cmdline, sizeof proc->cmdline - 1) : -1;
	extern char *program_invocation_short_name;
	const char *arg = NULL;

	if (fd >= 0)
		close(fd);
	proc->cmdline[n > 0 ? n : 0] = '\0';
	*script = '\0';
	if (n > 0 && !strncmp(program_invocation_short_name, "python", 6)) {
		/* the first argument that is not an option, or the one after -m */
		for (const char *a = proc->cmdline + strlen(proc->cmdline) + 1; a < proc->cmdline + n; a += strlen(a) + 1) {
			if (!strcmp(a, "-m") || *a != '-') {
				arg = !strcmp(a, "-m") ? a + 3 : a;
				break;
			}
		}
	}
	if (arg && arg < proc->cmdline + n) {
		const char *slash = strrchr(arg, '/');

		snprintf(script, len, "%s", slash ? slash + 1 : arg);
	}
	for (ssize_t i = 0; i < n - 1; i++)
		if (!proc->cmdline[i])
			proc->cmdline[i] = ' ';
	snprintf(proc->exe, sizeof proc->exe, "%s", program_invocation_short_name);
}

/* A fork() child that does not exec is not a process of the job: it never
 * writes (a serial file with a fixed name would replace its parent's, an
 * MPI rank's copy would leave a false partial file).  Its exit handler,
 * signal handler and wrappers see an inactive runtime. */
static void on_fork_child(void)
{
	struct tly_rt_proc *proc = tly_rt_proc();

	proc->active = 0;
	proc->finished = 1;
}

/* Children that the measured process starts (a shell of system() or
 * popen(), a helper it fork()s and exec()s) inherit the preload.  By
 * default (TALLY_CHILDREN=exclude) they are not measured: the measured
 * process leaves its pid in TALLY_INTERNAL_PARENT, and a process that
 * finds another pid there is its descendant.  'measure' measures them as
 * programs of their own (each writes its own file). */
static int is_child_of_measured(void)
{
	struct tly_rt_proc *proc = tly_rt_proc();
	const char *par = tly_env_raw("TALLY_INTERNAL_PARENT");

	if (!par || !*par || atol(par) == (long)getpid())
		return 0;
	if (!strcmp(proc->opt.raw.children, "measure"))
		return 0;
	return 1;
}

static void mark_measured(void)
{
	struct tly_rt_proc *proc = tly_rt_proc();
	char pid[32];

	snprintf(pid, sizeof pid, "%ld", proc->pid);
	setenv("TALLY_INTERNAL_PARENT", pid, 1);
	pthread_atfork(NULL, NULL, on_fork_child);
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* What one clock read and one read of the thread's counters cost here:
 * the per-event part of Tally's cost is estimated from them (a region
 * visit reads the clock twice, its counters twice when it has them). */
static void measure_read_costs(const struct tly_rt_thread *t)
{
	struct tly_rt_proc *proc = tly_rt_proc();
	long long v[TLY_RT_MAX_EVENTS];
	volatile int64_t sink = 0;
	int64_t t0 = tly_rt_now();

	for (int i = 0; i < 16; i++)
		sink += tly_rt_now();
	proc->clock_read_ns = (tly_rt_now() - t0) / 17;
	if (!t || t->evset < 0)
		return;
	t0 = tly_rt_now();
	for (int i = 0; i < 16; i++)
		PAPI_read(t->evset, v);
	proc->counter_read_ns = (tly_rt_now() - t0) / 16;
	(void)sink;
}

static void start_measuring(void)
{
	struct tly_rt_proc *proc = tly_rt_proc();
	int64_t t_load = mono_ns();   /* the earliest point of Tally's start-up */
	struct timespec cpu;
	char script[256];

	/* what the process cost before Tally's constructor: exec and loading */
	if (!clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu))
		proc->load_cpu_ns = (int64_t)cpu.tv_sec * 1000000000 + cpu.tv_nsec;
	proc->init_cpu_ns = -tly_rt_thread_cpu_ns();
	tly_rt_config_load(&proc->opt);
	read_cmdline(script, sizeof script);
	tly_settings_given(proc->settings, sizeof proc->settings);
	proc->pid = (long)getpid();
	proc->nranks = 1;
	if (tly_rt_job_env(&proc->job)) {   /* the launcher's rank, before MPI_Init */
		proc->rank = proc->job.rank;
		proc->nranks = proc->job.size;
	}
	if (proc->opt.disable || tly_rt_name_in_list(proc->opt.raw.exclude, proc->exe)
	    || (*script && tly_rt_name_in_list(proc->opt.raw.exclude, script)) || is_child_of_measured()) {
		if (!proc->opt.disable)
			tly_rt_helper_mark_wrapper(proc->exe);   /* a shell: its commands are helpers */
		return;
	}
	tly_rt_helper_note_start();
	tly_rt_clock_init();   /* a process not measured never needs the fast clock */
	tly_rt_libomp_switch(proc->opt.raw.libomp);   /* may run the program again on libomp */
	mark_measured();
	tly_rt_config_report();
	proc->will_measure = 1;
	proc->start_ns = tly_rt_now();
	proc->start_wall = (int64_t)time(NULL);
	choose_events();
	proc->active = 1;
	measure_read_costs(tly_rt_thread_new_self(TLY_RT_THREAD_MAIN));
	/* the parts of a program without MPI start now (an MPI program's at
	 * MPI_Init: passes/pass_sync.c), GPU metrics among them */
	if (!tly_rt_program_links_mpi()) {
		tly_rt_parts_job_start(NULL);
		tly_rt_writers[0]->init();   /* an MPI program's at its first write (output/h5_writer.c) */
	}
	tly_rt_exit_install();
	proc->init_ns = mono_ns() - t_load;
	proc->init_cpu_ns += tly_rt_thread_cpu_ns();
}

static void start_once(void)
{
	in_start = 1;
	start_measuring();
	in_start = 0;
	atomic_store_explicit(&started, 1, memory_order_release);
}

int tly_rt_enabled(void)
{
	struct tly_rt_proc *proc = tly_rt_proc();

	if (atomic_load_explicit(&started, memory_order_acquire))
		return proc->active;
	if (in_start)
		return 0;     /* called back from inside the start-up */
	pthread_once(&proc_once, start_once);
	return proc->active;
}

int tly_rt_will_measure(void)
{
	struct tly_rt_proc *proc = tly_rt_proc();

	if (in_start)
		return proc->will_measure;
	return tly_rt_enabled();
}

__attribute__((constructor)) static void tly_rt_load(void)
{
	tly_rt_enabled();
}

struct tly_rt_thread *tly_rt_self_kind(enum tly_rt_thread_kind kind)
{
	if (tly_rt_self_tls)
		return tly_rt_self_tls;
	if (!tly_rt_enabled())
		return NULL;
	return tly_rt_thread_new_self(kind);
}

struct tly_rt_thread *tly_rt_self_slow(void)
{
	return tly_rt_self_kind(TLY_RT_THREAD_OTHER);
}
