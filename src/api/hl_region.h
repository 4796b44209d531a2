/*
 * hl_region.h - data of the PAPI 7 high-level region API, shared by the
 * region calls (papi_hl_region.c) and the summary writer (hl_region_out.c).
 * Internal: never installed.
 */
#ifndef TALLY_API_HL_REGION_H
#define TALLY_API_HL_REGION_H

#include <pthread.h>
#include <stdio.h>
#include <sys/types.h>

#include "papi.h"

#define TLY_HL_MAX_EVENTS 32
#define TLY_HL_SLOTS 256   /* first size of a thread's table; 4x as it fills */

/* Totals of one region name in one thread. */
struct tly_hl_region {
	char *name;
	unsigned hash;
	long long visits;     /* completed begin..end pairs */
	long long real_nsec;  /* inclusive real time over those visits */
	long long *values;    /* summed begin..end deltas, one per event of the process */
	long long reads;      /* PAPI_hl_read calls */
	long long last_read_nsec;
	long long *last_read;
	struct tly_hl_region *next;   /* creation order, for output */
	long long v[];        /* values and last_read: sized by the events counted, not
	                       * TLY_HL_MAX_EVENTS (100,000 regions: 60 MB -> 14 MB);
	                       * the name follows them in the same record */
};

/* One open (begun, not yet ended) instance of a region. */
struct tly_hl_open {
	struct tly_hl_region *region;
	long long t0;
	long long v0[TLY_HL_MAX_EVENTS];
};

/* One thread's region data.  Records stay in the process list after the
 * thread exits so the summary at exit still has them. */
struct tly_hl_thread {
	pid_t tid;
	pthread_mutex_t lock;  /* regions and totals, against the writer */
	int evset;             /* PAPI_NULL when not started */
	int nslots;            /* events in evset */
	int slot[TLY_HL_MAX_EVENTS]; /* process event i -> evset index, -1 */
	/* open addressing, at most half full: the hash kept in the slot, so
	 * neither a miss nor a rehash reads a region (a cache miss each) */
	struct tly_hl_slot { unsigned hash; struct tly_hl_region *region; } *tab;
	unsigned ntab, nregions;
	struct tly_hl_region *first, *last;
	char *arena;           /* regions are carved from chunks (never freed, */
	size_t arena_left;     /* like the regions): no allocation per name */
	struct tly_hl_open *stack;
	int depth, cap;
	struct tly_hl_thread *next;
};

/* The process-wide event list every thread counts. */
struct tly_hl_events {
	int n;
	int codes[TLY_HL_MAX_EVENTS];
	char names[TLY_HL_MAX_EVENTS][PAPI_MAX_STR_LEN];
};

/*
 * Write the summary of `threads` as JSON to $TALLY_OUTPUT_DIR (default
 * ".") as tally_hl_<hostname>_<pid>.json, or to stderr (with one message
 * saying why) when that file cannot be written.  The caller holds the lock
 * that protects the thread list; each thread's lock is taken here.
 */
void tly_hl_write_summary(const struct tly_hl_events *ev, struct tly_hl_thread *threads);
/* The same JSON document on `f`. */
void tly_hl_print_json(FILE *f, const struct tly_hl_events *ev, struct tly_hl_thread *threads);

#endif /* TALLY_API_HL_REGION_H */
