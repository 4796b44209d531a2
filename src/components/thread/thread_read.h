/*
 * thread_read.h - what the kernel keeps for every thread, read without a
 * perf event (the `thread` component, thread_component.c).
 */
#ifndef TALLY_COMPONENTS_THREAD_READ_H
#define TALLY_COMPONENTS_THREAD_READ_H

enum tly_th_ev {
	TLY_TH_CPU_TIME,        /* ns the thread ran, user and kernel (its CPU clock) */
	TLY_TH_PAGE_FAULTS,     /* minor + major */
	TLY_TH_MINOR_FAULTS,
	TLY_TH_MAJOR_FAULTS,
	TLY_TH_CONTEXT_SWITCHES, /* voluntary + involuntary */
	TLY_TH_VOLUNTARY_SWITCHES,
	TLY_TH_INVOLUNTARY_SWITCHES,
	TLY_TH_NEV
};

struct tly_th_event {
	const char *name, *units, *descr;
};
extern const struct tly_th_event tly_th_events[TLY_TH_NEV];

/* The index of `name` (without the "thread:::" prefix), -1 if none. */
int tly_th_find(const char *name);

/*
 * Reads the values of the events whose bits are set in `mask` (1 << ev)
 * into v[ev].  tid 0: the calling thread (its CPU clock, getrusage
 * RUSAGE_THREAD: one or two system calls); another thread of this process
 * (its CPU clock by thread id, /proc/self/task/<tid>/stat and status).
 * Returns 0, or -1 with errno (ESRCH: no such thread, it has ended).
 */
int tly_th_read(long tid, unsigned mask, long long v[TLY_TH_NEV]);

#endif
