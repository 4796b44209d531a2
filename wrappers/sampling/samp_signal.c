/*
 * samp_signal.c - the runtime part "sampling": per measured thread a
 * source of signals on its own CPU time (samp_source.c: perf's cpu-clock,
 * or a POSIX CPU-clock timer where perf is not allowed) and the signal
 * handler.
 *
 * The handler is async-signal-safe and bounded: it reads the interrupted
 * registers from the ucontext, copies at most TALLY_SAMPLING_STACK bytes
 * of the stack above the stack pointer (inside the thread's stack, whose
 * bounds were read at the thread's start) into the thread's preallocated
 * ring, and posts a semaphore when the ring is half full.  No allocation,
 * no lock: a sample that finds the ring full is counted as lost.  The
 * unwinding is done later, outside any handler (samp_drain.c).
 *
 * The signal is a real-time one of Tally's (SIGRTMIN+4, beside the
 * perf_event component's +2 and +3); taken only where it is at SIG_DFL,
 * so a program's own handler wins and sampling says it is off.  Neither
 * source is inherited across fork: a forked child takes no
 * samples (its file says so), and its lock is made fresh.
 */
#include "sampling/samp.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "runtime/rt_config_check.h"
#include "runtime/rt_parts.h"
#include "rt_part_ids.h"
#include "tally_shared.h"

#define SAMP_TIME_EVERY 16    /* the handler times one sample in 16 */

static struct tly_samp_state samp_state = { .lock = PTHREAD_MUTEX_INITIALIZER };
static _Thread_local struct tly_samp_thread *samp_self __attribute__((tls_model("initial-exec")));
static pthread_once_t samp_once = PTHREAD_ONCE_INIT;

struct tly_samp_state *tly_samp_state(void)
{
	return &samp_state;
}

/* The vDSO clock (about 20 ns; the thread's CPU clock is a system call
 * of over a microsecond here, more than the handler itself). */
static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);   /* async-signal-safe */
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static uint64_t regs_of(const ucontext_t *uc, uint64_t *r)
{
#if defined(__x86_64__)
	static const int map[TLY_SAMP_NREGS] = { REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI, REG_RBP,
		REG_RSP, REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP };

	for (int i = 0; i < TLY_SAMP_NREGS; i++)
		r[i] = (uint64_t)uc->uc_mcontext.gregs[map[i]];
	return r[7];
#elif defined(__aarch64__)
	for (int i = 0; i < 31; i++)
		r[i] = uc->uc_mcontext.regs[i];
	r[31] = uc->uc_mcontext.sp;
	r[32] = uc->uc_mcontext.pc;
	return r[31];
#else
	(void)uc;
	(void)r;
	return 0;
#endif
}

/* Room for `need` bytes at the ring's head, padding to its end first when
 * the record would not fit there; the offset, or -1 when full. */
static int64_t reserve(struct tly_samp_thread *s, uint64_t need, uint64_t *head)
{
	uint64_t h = atomic_load_explicit(&s->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&s->tail, memory_order_acquire);
	uint64_t pos = h % s->cap, pad = s->cap - pos < need ? s->cap - pos : 0;

	if (h + pad + need - tail > s->cap)
		return -1;
	if (pad) {
		struct tly_samp_rec *p = (struct tly_samp_rec *)(s->buf + pos);

		p->size = (uint32_t)pad;
		p->stack_len = UINT32_MAX;
		h += pad;
		pos = 0;
	}
	*head = h;
	return (int64_t)pos;
}

/* The interrupted stack, copied as bytes the program owns: under
 * AddressSanitizer it holds redzones and poisoned frames that an
 * instrumented (or intercepted) memcpy reports, so an ASan build copies
 * word by word, uninstrumented; elsewhere memcpy. */
#if defined(__SANITIZE_ADDRESS__)
#define SAMP_RAW_COPY __attribute__((no_sanitize_address, noinline))
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SAMP_RAW_COPY __attribute__((no_sanitize_address, noinline))
#endif
#endif
#ifdef SAMP_RAW_COPY
SAMP_RAW_COPY static void copy_stack(unsigned char *dst, uint64_t sp, uint64_t len)
{
	const volatile uint64_t *from = (const volatile uint64_t *)sp;
	uint64_t *to = (uint64_t *)(void *)dst;

	for (uint64_t i = 0; i < len / 8; i++)
		to[i] = from[i];
}
#else
static void copy_stack(unsigned char *dst, uint64_t sp, uint64_t len)
{
	__builtin_memcpy(dst, (const void *)sp, len);
}
#endif

static void take(struct tly_samp_thread *s, int w, const ucontext_t *uc)
{
	struct tly_samp_rec hdr;
	uint64_t sp, len, need, head;
	int64_t pos;

	atomic_fetch_add_explicit(&s->taken, w, memory_order_relaxed);
	atomic_fetch_add_explicit(&s->signals, 1, memory_order_relaxed);
	sp = regs_of(uc, hdr.regs);
	if (sp < s->stack_lo || sp >= s->stack_hi) {   /* an alternate signal stack */
		atomic_fetch_add_explicit(&s->lost_stack, w, memory_order_relaxed);
		return;
	}
	len = s->stack_hi - sp < s->stack_max ? s->stack_hi - sp : s->stack_max;
	len &= ~(uint64_t)7;
	need = (sizeof hdr + len + 7) & ~(uint64_t)7;
	if ((pos = reserve(s, need, &head)) < 0) {
		atomic_fetch_add_explicit(&s->lost_full, w, memory_order_relaxed);
		return;
	}
	hdr.size = (uint32_t)need;
	hdr.stack_len = (uint32_t)len;
	hdr.region = atomic_load_explicit(&s->region, memory_order_relaxed);
	hdr.weight = w;
	hdr.sp = sp;
	__builtin_memcpy(s->buf + pos, &hdr, sizeof hdr);
	copy_stack((unsigned char *)s->buf + pos + sizeof hdr, sp, len);
	atomic_store_explicit(&s->head, head + need, memory_order_release);
	if (head + need - atomic_load_explicit(&s->tail, memory_order_relaxed) > s->cap / 2)
		sem_post(&samp_state.wake);   /* async-signal-safe */
}

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	struct tly_samp_thread *s = samp_self;
	int saved = errno, timed, w;
	int64_t t0 = 0;

	(void)sig;
	if (!s || !ctx || atomic_load_explicit(&samp_state.stopped, memory_order_relaxed))
		goto out;
	timed = s->seq++ % SAMP_TIME_EVERY == 0;
	if (timed)
		t0 = now_ns();
	if ((w = tly_samp_signal_weight(s, si)) > 0)
		take(s, w, ctx);
	if (timed) {
		uint32_t k = atomic_load_explicit(&s->ntimed, memory_order_relaxed);

		t0 = now_ns() - t0;
		s->timing[k % TLY_SAMP_TIMINGS] = t0 > UINT32_MAX ? UINT32_MAX : (uint32_t)t0;
		atomic_store_explicit(&s->ntimed, k + 1, memory_order_release);
	}
out:
	errno = saved;
}

/* fork waits until the drain thread is idle: it unwinds under the lock,
 * allocating all the while (libdwfl), and a child forked while it was in
 * the allocator inherited the allocator's locks held.  glibc's malloc
 * makes that safe for itself, AddressSanitizer's (GCC 12) does not: the
 * child's first malloc spun forever (sampling_fork hung under ASan). */
static void before_fork(void)
{
	if (!atomic_load(&samp_state.forked))
		pthread_mutex_lock(&samp_state.lock);
}

static void parent_fork(void)
{
	if (!atomic_load(&samp_state.forked))
		pthread_mutex_unlock(&samp_state.lock);
}

static void after_fork(void)
{
	/* the drain thread and the parent's timers are not in the child; the
	 * lock before_fork took is the parent's */
	pthread_mutex_init(&samp_state.lock, NULL);
	atomic_store(&samp_state.forked, 1);
	atomic_store(&samp_state.stopped, 1);
	samp_self = NULL;
}

/* TALLY_SAMPLING_EVENT: a counter drives the samples, by perf (no timer
 * behind it); 0, or -1 with sampling off and one line per job. */
static int event_source(const char *spec)
{
	char why[sizeof samp_state.why];

	if (tly_samp_event_resolve(spec, &samp_state.ev, why, sizeof why) != 0 ||
	    tly_samp_event_probe(&samp_state.ev, why, sizeof why) != 0) {
		snprintf(samp_state.why, sizeof samp_state.why, "%s", why);
		tly_rt_log_job(0, "sampling is off: %s", why);
		return -1;
	}
	samp_state.event = 1;
	samp_state.want = TLY_SAMP_PERF;
	return 0;
}

static void install(void)
{
	struct tly_rt_proc *p = tly_rt_proc();
	const char *event = p->opt.raw.sampling_event;
	long long rate = tly_rt_sampling_rate(p->opt.raw.sampling);
	struct sigaction sa, old;

	if ((rate <= 0 && !event[0]) || TLY_SAMP_NREGS == 0) {
		snprintf(samp_state.why, sizeof samp_state.why, "%s",
			 TLY_SAMP_NREGS == 0 ? "not available on this architecture"
			 : rate < 0	     ? "TALLY_SAMPLING is not a rate (said at the start)"
					     : "TALLY_SAMPLING is off");
		return;
	}
	samp_state.asked = 1;
	samp_state.signo = SIGRTMIN + 4;
	samp_state.want = !strcmp(p->opt.raw.sampling_source, "perf") ? TLY_SAMP_PERF
			  : !strcmp(p->opt.raw.sampling_source, "timer") ? TLY_SAMP_TIMER : TLY_SAMP_AUTO;
	if (event[0]) {   /* the rate is not used */
		if (event_source(event) != 0)
			return;
		rate = 0;
	}
	atomic_store(&samp_state.source, samp_state.want);
	if (sigaction(samp_state.signo, NULL, &old) != 0 || old.sa_handler != SIG_DFL) {
		snprintf(samp_state.why, sizeof samp_state.why, "the program handles signal %d", samp_state.signo);
		tly_rt_log_job(0, "sampling is off: the program has its own handler of signal %d", samp_state.signo);
		return;
	}
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sem_init(&samp_state.wake, 0, 0) != 0 || sigaction(samp_state.signo, &sa, NULL) != 0) {
		snprintf(samp_state.why, sizeof samp_state.why, "the signal handler could not be installed");
		return;
	}
	pthread_atfork(before_fork, parent_fork, after_fork);
	samp_state.rate = (int)rate;
	samp_state.on = 1;
	tly_samp_drain_start(&samp_state);
}

static int stack_bounds(struct tly_samp_thread *s)
{
	pthread_attr_t a;
	void *lo = NULL;
	size_t sz = 0;

	if (pthread_getattr_np(pthread_self(), &a) != 0)
		return -1;
	pthread_attr_getstack(&a, &lo, &sz);
	pthread_attr_destroy(&a);
	s->stack_lo = (uintptr_t)lo;
	s->stack_hi = (uintptr_t)lo + sz;
	return lo && sz ? 0 : -1;
}

/* A new measured thread: its ring and its timer.  A thread that cannot
 * be sampled is still measured (sampling is never why a record fails). */
static int thread_start(struct tly_rt_thread *t)
{
	struct tly_samp_thread *s;
	long long stack = 0, cap = 0;
	struct tly_rt_proc *p = tly_rt_proc();
	char why[128];

	pthread_once(&samp_once, install);
	if (!samp_state.on || atomic_load(&samp_state.forked) || !(s = calloc(1, sizeof *s)))
		return 0;
	tly_parse_num(p->opt.raw.sampling_stack, 1, 1048576, &stack);
	tly_parse_num(p->opt.raw.sampling_buffer, 1, 1073741824, &cap);
	s->t = t;
	s->stack_max = (uint64_t)stack;
	/* at least two records of the largest size; a multiple of 8 */
	s->cap = ((uint64_t)cap < 2 * (sizeof(struct tly_samp_rec) + s->stack_max) + 8
			  ? 2 * (sizeof(struct tly_samp_rec) + s->stack_max) + 8 : (uint64_t)cap) & ~(uint64_t)7;
	/* touched now, so no sample takes a page fault in the handler */
	if ((s->buf = malloc(s->cap)))
		memset(s->buf, 0, s->cap);
	atomic_store(&s->region, t->depth ? t->stack[t->depth - 1].node : 0);
	if (!s->buf || stack_bounds(s) != 0) {
		free(s->buf);
		free(s);
		return 0;
	}
	tly_rt_parts_watch_regions();
	t->slot[TLY_RT_PART_sampling] = s;
	pthread_mutex_lock(&samp_state.lock);
	s->next = samp_state.threads;
	samp_state.threads = s;
	pthread_mutex_unlock(&samp_state.lock);
	samp_self = s;
	if (tly_samp_arm(&samp_state, s, why, sizeof why) != 0)
		tly_rt_log(1, "thread %ld: its sampling source could not be armed (%s); it is not sampled", t->ktid, why);
	return 0;
}

/* The region open on t changed: what the next sample of t is counted in. */
static void region_change(const struct tly_rt_thread *t)
{
	struct tly_samp_thread *s = t->slot[TLY_RT_PART_sampling];

	if (s && t->depth > 0)
		atomic_store_explicit(&s->region, t->stack[t->depth - 1].node, memory_order_relaxed);
}

void tly_samp_stop(void)
{
	if (atomic_exchange(&samp_state.stopped, 1) || atomic_load(&samp_state.forked))
		return;
	pthread_mutex_lock(&samp_state.lock);
	for (struct tly_samp_thread *s = samp_state.threads; s; s = s->next)
		tly_samp_disarm(s, s == samp_self);
	pthread_mutex_unlock(&samp_state.lock);
}

/* A thread's end: its source stops (a perf counter's descriptor is not
 * kept open for a thread that is gone). */
static void thread_stop(struct tly_rt_thread *t)
{
	struct tly_samp_thread *s = t->slot[TLY_RT_PART_sampling];

	if (!s || atomic_load(&samp_state.forked))
		return;
	pthread_mutex_lock(&samp_state.lock);
	tly_samp_disarm(s, s == samp_self);
	pthread_mutex_unlock(&samp_state.lock);
}

const struct tly_rt_part tly_rt_part_sampling = {
	.name = "sampling",
	.thread_start = thread_start,
	.thread_stop = thread_stop,
	.region_change = region_change,
};
