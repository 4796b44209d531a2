/*
 * evset_types.h - the event set's structures (struct tly_evset, its parts
 * and arrays).  Types only (no .c): eventset, evset_count, part and
 * overflow include it, so includes point down (eventset.h describes the
 * functions, evset_count.h counting, part.h the parts, overflow.h overflow).
 */
#ifndef TALLY_CORE_EVSET_TYPES_H
#define TALLY_CORE_EVSET_TYPES_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include "papi.h"
#include "components/component.h"
#include "core/preset_types.h"

#define TLY_MAX_EVENTS 64   /* PAPI events per set */
#define TLY_MAX_NATIVES 64  /* distinct natives per set */

struct tly_thread;
struct tly_prof;

/* One event as the user added it. */
struct tly_ev {
	int code;                 /* preset or native code */
	int derived;              /* enum tly_derived */
	const struct tly_preset *preset; /* NULL for natives */
	int nterms;
	int pos[TLY_MAX_TERMS];   /* index of each term in natives[] */
	int overflow_threshold;   /* PAPI_overflow threshold, 0 when off */
	int overflow_sw;          /* PAPI_OVERFLOW_FORCE_SW: timer-driven */
	struct tly_prof *prof;    /* PAPI_profil/sprofil buffers, or NULL */
};

/* The natives of one component inside a set, and its control state. */
struct tly_part {
	int cidx;
	void *ctl;
	int n;                      /* natives counted by this part */
	int idx[TLY_MAX_NATIVES];   /* their positions in tly_evset.native[] */
	/* hot-path copies set by tly_parts_update: the component's ctl_read
	 * and ctl_reset,
	 * and idx[0] when idx[] is idx[0], idx[0]+1, ... (the part reads
	 * straight into tly_evset.raw), else -1 */
	int (*read)(void *ctl, long long *vals);
	int (*reset)(void *ctl);    /* NULL: the component cannot reset */
	int base;
};

#define TLY_MAX_PARTS 4

/* The per-event and per-native arrays of a set (9 KiB), allocated when
 * its first event is added: an empty set is small, so creating 100,000
 * sets costs no more than their headers (eventset.c). */
struct tly_evset_arrays {
	struct tly_ev ev[TLY_MAX_EVENTS];
	int native[TLY_MAX_NATIVES];      /* native codes */
	int native_cidx[TLY_MAX_NATIVES];
	long long offset[TLY_MAX_NATIVES];/* PAPI_write adjustment per native */
	long long raw[TLY_MAX_NATIVES];   /* last raw read */
	long long stopvals[TLY_MAX_EVENTS]; /* values when last stopped */
	long long pending[TLY_MAX_EVENTS];  /* PAPI_write on a stopped set */
	struct tly_part part[TLY_MAX_PARTS];
	long long ovf_last[TLY_MAX_EVENTS]; /* software overflow: counts at the last crossing */
	long long ovf_sw_missed[TLY_MAX_EVENTS]; /* software profil: crossings with no PC to credit */
};

struct tly_evset {
	int id;
	int cidx;                 /* first/assigned component, -1 until known */
	int state;                /* PAPI_STOPPED / PAPI_RUNNING | flags */
	unsigned long owner_tid;  /* PAPI thread id of the creating thread */
	struct tly_thread *runner;/* thread that started it */
	struct tly_ctl_opts opts;
	int nevents;
	int nnative;
	int has_offset;                   /* some offset may be non-zero */
	int has_pending;
	int nparts;
	PAPI_overflow_handler_t overflow_handler;
	/* software overflow (overflow.c): timer at the last threshold
	 * crossing */
	long ovf_sw_ns;
	int ovf_timer_on;
	timer_t ovf_timer;
	void *ovf_pc;          /* PC of the last software-overflow tick */
	/* the arrays; a shared read-only empty instance until the first
	 * event is added (every array is read only below its count) */
	struct tly_evset_arrays *a;
};

#endif /* TALLY_CORE_EVSET_TYPES_H */
