/*
 * test_overflow_rate.c - overflow on perf::TASK-CLOCK with a 1 ms
 * threshold (1,000,000 ns), in two threads at once: each thread's handler
 * runs about once per ms of that thread's CPU time (within 10%, against
 * CLOCK_THREAD_CPUTIME_ID), always in the thread that started the set
 * (gettid), with that thread's event set, a vector with exactly the
 * TASK-CLOCK bit, and a PC inside a loaded object (dladdr), mostly
 * (>= 90%) in the spinning function.  Rows: hardware (perf sampling,
 * default and PAPI_OVERFLOW_HARDWARE) and PAPI_OVERFLOW_FORCE_SW (CPU-time
 * timer; one call per threshold crossed).  The work is a user-space loop
 * (the samples of a user-domain count are taken in user mode only).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>

#include "api_util.h"
#include "sym_util.h"

#define NTHREADS 2
#define WORK_NS 300000000LL /* 300 ms of CPU per thread */
#define THRESHOLD 1000000

struct worker {
	int flags;
	pid_t tid;
	int evset;
	long long cpu_ns;
	long long extra_ns; /* the thread's own extra time around the counting */
	int rc;
	long calls, wrong_thread, wrong_set, wrong_vec, bad_pc, in_spin;
};

static _Thread_local struct worker *self;
static _Thread_local long calls, wrong_thread, wrong_set, wrong_vec, bad_pc, in_spin;

/* Spin in user mode for ns of CPU, looking at the clock every ~1 ms. */
__attribute__((noinline)) static void spin(long long ns)
{
	uint64_t x = 1; /* in a register: no sanitizer calls in the loop */
	long long end = th_thread_cpu_ns() + ns;

	while (th_thread_cpu_ns() < end)
		for (int i = 0; i < 300000; i++) {
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
			__asm__ volatile("" : "+r"(x));
		}
}
static uintptr_t spin_lo, spin_hi;
static volatile long long work_ns = WORK_NS; /* no constant-propagated clone of spin */

static void handler(int es, void *pc, long long vec, void *ctx)
{
	(void)ctx;
	calls++;
	if (!self || (pid_t)syscall(SYS_gettid) != self->tid)
		wrong_thread++;
	else if (es != self->evset)
		wrong_set++;
	if (vec != 1)
		wrong_vec++;
	Dl_info di;

	if (!dladdr(pc, &di))
		bad_pc++;
	in_spin += (uintptr_t)pc >= spin_lo && (uintptr_t)pc < spin_hi;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	int tc, es = PAPI_NULL;
	long long v, t0;
	struct th_clock around;

	self = w;
	w->tid = (pid_t)syscall(SYS_gettid);
	w->rc = PAPI_event_name_to_code(API_TASK_CLOCK, &tc);
	if (!w->rc) w->rc = PAPI_create_eventset(&es);
	if (!w->rc) w->rc = PAPI_add_event(es, tc);
	w->evset = es;
	if (!w->rc) w->rc = PAPI_overflow(es, tc, THRESHOLD, w->flags, handler);
	around = th_clock_now();
	if (!w->rc) w->rc = PAPI_start(es);
	t0 = th_thread_cpu_ns();
	spin(work_ns);
	w->cpu_ns = th_thread_cpu_ns() - t0;
	if (!w->rc) w->rc = PAPI_stop(es, &v);
	w->extra_ns = th_clock_extra_ns(&around);
	/* threshold 0 turns overflow off */
	if (!w->rc) w->rc = PAPI_overflow(es, tc, 0, w->flags, NULL);
	PAPI_cleanup_eventset(es);
	PAPI_destroy_eventset(&es);
	w->calls = calls;
	w->wrong_thread = wrong_thread;
	w->wrong_set = wrong_set;
	w->wrong_vec = wrong_vec;
	w->bad_pc = bad_pc;
	w->in_spin = in_spin;
	calls = wrong_thread = wrong_set = wrong_vec = bad_pc = in_spin = 0;
	return NULL;
}

static void check_mode(int line, int flags)
{
	struct worker w[NTHREADS];
	pthread_t th[NTHREADS];

	th_at(line);
	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .flags = flags };
		TH_EQ(pthread_create(&th[i], NULL, run, &w[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		TH_EQ(w[i].rc, PAPI_OK);
		printf("flags 0x%x thread %d: %ld handler calls over %.1f ms of CPU, %ld in spin\n", flags, i,
		       w[i].calls, w[i].cpu_ns / 1e6, w[i].in_spin);
		/* Task-clock runs at least as long as the thread's CPU time and
		 * at most that plus the thread's own extra time (steal, IRQs)
		 * around the counting; 10% for signal delivery and rounding. */
		TH_CHECK(w[i].calls >= 0.90 * w[i].cpu_ns / (double)THRESHOLD);
		TH_CHECK(w[i].calls <= 1.10 * (w[i].cpu_ns + w[i].extra_ns) / (double)THRESHOLD);
		TH_EQ(w[i].wrong_thread, 0);
		TH_EQ(w[i].wrong_set, 0);
		TH_EQ(w[i].wrong_vec, 0);
		TH_EQ(w[i].bad_pc, 0);
		/* a sampled PC (hardware rows) is where the clock crossed, in
		 * user mode: the spin; the CPU-time timer's signal (FORCE_SW) is
		 * delivered when the thread returns to user mode, on a busy
		 * machine often from the clock's system call after a preemption
		 * (under 90% in spin in one run at load ~20 on 2 cores) */
		TH_CHECK(w[i].in_spin >= (flags & PAPI_OVERFLOW_FORCE_SW ? 0.75 : 0.9) * w[i].calls);
	}
	th_at(0);
}

int main(void)
{
	PAPI_option_t o;

	api_init();
	TH_EQ(PAPI_thread_init(pthread_self), PAPI_OK);
	TH_EQ(sym_range("spin", &spin_lo, &spin_hi), 0);
	/* software overflow: ask for 100 us ticks (the kernel's CPU timers
	 * deliver at its own tick at best) */
	memset(&o, 0, sizeof o);
	TH_EQ(PAPI_get_opt(PAPI_DEF_ITIMER, &o), PAPI_OK);
	o.itimer.ns = 100000;
	TH_EQ(PAPI_set_opt(PAPI_DEF_ITIMER_NS, &o), PAPI_OK);
	struct { int line; int flags; } rows[] = {
		{ __LINE__, 0 },
		{ __LINE__, PAPI_OVERFLOW_HARDWARE },
		{ __LINE__, PAPI_OVERFLOW_FORCE_SW },
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		check_mode(rows[i].line, rows[i].flags);
	PAPI_shutdown();
	return th_done();
}
