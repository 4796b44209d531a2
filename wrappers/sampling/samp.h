/*
 * samp.h - statistical call-path sampling of every measured thread
 * (docs/sampling.md).  Its files, arrows one way:
 *
 *   samp_source.c  what drives the samples: per thread the perf software
 *                  event cpu-clock (exact period), a POSIX timer on the
 *                  thread's CPU clock (checked at the kernel's tick) or a
 *                  counter every PERIOD counts (samp_event.c names it);
 *   samp_signal.c  the runtime part "sampling": the signal handler that copies
 *                  the interrupted registers and a bounded piece of the
 *                  stack into the thread's preallocated ring, the region
 *                  open on the thread (region_change hook), fork;
 *   samp_drain.c   a thread of Tally's that empties the rings: each copy
 *                  is unwound offline by DWARF call-frame information
 *                  (libdwfl over the copy) into the thread's tree of code
 *                  addresses, counted per region;
 *   samp_rows.c    the writer module "sampling": addresses to functions
 *                  and lines (inlined frames too), call paths unified
 *                  across ranks, the sample_paths, samples and
 *                  sampling_status tables (a unit's function instances
 *                  indexed once: runtime/rt_scopes.c, which rt_srcname.c
 *                  uses too).
 *
 * The handler only writes its own thread's ring and counters; the drain
 * thread only reads rings and owns the trees, under samp_state.lock.
 */
#ifndef TALLY_SAMP_H
#define TALLY_SAMP_H

#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "runtime/rt.h"

#if defined(__x86_64__)
#define TLY_SAMP_NREGS 17     /* DWARF 0..16: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
#elif defined(__aarch64__)
#define TLY_SAMP_NREGS 33     /* DWARF 0..31: x0..x30 sp; [32] pc */
#else
#define TLY_SAMP_NREGS 0      /* no sampling on this architecture */
#endif
#define TLY_SAMP_DEPTH 128    /* deepest call path kept */
#define TLY_SAMP_TIMINGS 64   /* handler timings kept per thread */

/* One record of a ring; `stack_len` bytes of stack follow, from `sp`. */
struct tly_samp_rec {
	uint32_t size;        /* bytes of the record, a multiple of 8 */
	uint32_t stack_len;   /* UINT32_MAX: padding up to the ring's end */
	int32_t region;       /* node of the thread's region tree open at the sample */
	int32_t weight;       /* timer expirations it stands for (1 + overruns) */
	uint64_t sp;
	uint64_t regs[TLY_SAMP_NREGS ? TLY_SAMP_NREGS : 1];
};

/* (a, b) -> index map, open addressing (samp_drain.c). */
struct tly_samp_map {
	int64_t *key;         /* 2 per slot */
	int32_t *val;         /* -1: empty */
	uint32_t cap, n;
};
int32_t tly_samp_map_get(const struct tly_samp_map *m, int64_t a, int64_t b);
int tly_samp_map_put(struct tly_samp_map *m, int64_t a, int64_t b, int32_t v);
void tly_samp_map_free(struct tly_samp_map *m);

/* The call-path tree of one thread: node = (parent, code address). */
struct tly_samp_node {
	uint64_t pc;          /* the address looked up: a return address less 1 */
	int32_t parent;       /* -1: outermost frame */
};
struct tly_samp_count {
	int32_t node, region;
	int64_t samples;
};

struct tly_samp_thread {
	struct tly_rt_thread *t;
	struct tly_samp_thread *next;
	/* ring: written by the handler (head), read by the drain (tail) */
	unsigned char *buf;
	uint64_t cap;
	_Atomic uint64_t head, tail;
	uint64_t stack_max;
	uintptr_t stack_lo, stack_hi;
	timer_t timer;
	int fd;               /* the perf source's counter, -1 */
	int credit;           /* perf overflows taken since the credit was last given back */
	int64_t period;       /* the perf source's period (its counter's units), 0 for the timer */
	int64_t periods;      /* the perf counter's whole periods when it was disarmed, -1 unknown */
	_Atomic int armed;    /* the source armed: TLY_SAMP_PERF or TLY_SAMP_TIMER, 0: none */
	_Atomic int32_t region;
	/* the handler's counters (its thread alone writes them) */
	_Atomic int64_t taken, lost_full, lost_stack;
	_Atomic int64_t signals;       /* handler calls (taken counts each timer signal's overruns too) */
	uint32_t seq;
	/* the last TLY_SAMP_TIMINGS handler timings, ns: their median is its
	 * cost (a mean would be a busy machine's preemptions and VM exits) */
	uint32_t timing[TLY_SAMP_TIMINGS];
	_Atomic uint32_t ntimed;
	/* the drain's (under samp_state.lock) */
	int64_t kept, lost_unwind, truncated, unwind_ns;
	struct tly_samp_node *nodes;
	int32_t nnodes, ncap;
	struct tly_samp_map node_of;   /* (parent, pc) -> node */
	struct tly_samp_count *counts;
	int32_t ncounts, ccap;
	struct tly_samp_map count_of;  /* (node, region) -> count */
};

/* A counter as the source (TALLY_SAMPLING_EVENT, samp_event.c). */
struct tly_samp_event {
	char name[64];                /* as the user wrote it: PAPI_TOT_CYC, perf::PAGE-FAULTS */
	char native[128];             /* a preset's native term, else the name */
	char full[192];               /* libpfm4's full name of what is counted */
	long long period;             /* counts per sample */
	struct perf_event_attr attr;  /* libpfm4's encoding; sample_period set at the arm */
};
int tly_samp_event_resolve(const char *spec, struct tly_samp_event *ev, char *why, size_t len);
int tly_samp_event_probe(const struct tly_samp_event *ev, char *why, size_t len);   /* samp_source.c */

struct tly_samp_state {
	pthread_mutex_t lock;         /* the list, the trees, the unwinder */
	struct tly_samp_thread *threads;
	int asked;                    /* TALLY_SAMPLING or TALLY_SAMPLING_EVENT set */
	int on;                       /* sampling armed in this process */
	int rate;                     /* samples per CPU second (0 with an event source) */
	int event;                    /* the source is ev (TALLY_SAMPLING_EVENT), by perf */
	struct tly_samp_event ev;
	int want;                     /* TALLY_SAMPLING_SOURCE: TLY_SAMP_AUTO, _PERF or _TIMER */
	atomic_int source;            /* what the process samples by (auto: the first thread decides) */
	char why_timer[128];          /* why auto took the timer, "" when it did not */
	int signo;
	atomic_int stopped;           /* the handler does nothing */
	atomic_int forked;            /* this process is a fork child */
	atomic_int drain_up;
	sem_t wake;                   /* a ring is half full */
	pthread_t drain;
	char why[512];                /* why sampling is off, "" when on (a PMU's reason is long); the file's status column holds it whole */
};
struct tly_samp_state *tly_samp_state(void);

/* samp_source.c: arm the calling thread's source (0, or -1 with why);
 * in the handler, the weight of a signal of s's source (0: not its);
 * disarm (caller holds the lock; own: the calling thread is s's). */
enum { TLY_SAMP_AUTO, TLY_SAMP_PERF, TLY_SAMP_TIMER };
int tly_samp_arm(struct tly_samp_state *st, struct tly_samp_thread *s, char *why, size_t len);
int tly_samp_signal_weight(struct tly_samp_thread *s, const siginfo_t *si);
void tly_samp_disarm(struct tly_samp_thread *s, int own);

/* samp_drain.c: start the drain thread (once); unwind every ring's
 * records into the trees (caller holds the lock). */
void tly_samp_drain_start(struct tly_samp_state *st);
/* The drain's libdwfl session of this process (modules reported), for
 * naming the addresses at the write; NULL without one (caller holds the lock). */
struct Dwfl;
struct Dwfl *tly_samp_dwfl(void);
void tly_samp_drain_all(struct tly_samp_state *st);
/* Stop sampling in every thread and drain what is left (samp_signal.c). */
void tly_samp_stop(void);

#endif
