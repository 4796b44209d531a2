/*
 * nvml_events.h - the nvml component's events: one table row per event,
 * each with the NVML query that reads it.
 */
#ifndef TALLY_NVML_EVENTS_H
#define TALLY_NVML_EVENTS_H

#include "nvml_dl.h"

enum tly_nvml_kind {
	TLY_NVML_INSTANT,   /* a reading at the time of the read (power, clocks) */
	TLY_NVML_COUNTER,   /* grows monotonically: read as the change since start */
};

struct tly_nvml_event {
	const char *name;
	const char *units;
	enum tly_nvml_kind kind;
	const char *descr;
	/* One reading of this event on `d` into *v; an NVML status.  `arg`
	 * picks what a query that reads several things reads (a clock, a
	 * sensor, a PCIe direction). */
	tly_nvml_ret (*read)(const struct tly_nvml_fns *f, tly_nvml_dev d, int arg, long long *v);
	int arg;
};

extern const struct tly_nvml_event tly_nvml_events[];
extern const int tly_nvml_nevents;

/* Index of the event called `name` (no prefix, no qualifier), -1 if none. */
int tly_nvml_event_find(const char *name);
/* One reading of event `ev` on `d` into *v; an NVML status. */
tly_nvml_ret tly_nvml_event_read(int ev, const struct tly_nvml_fns *f, tly_nvml_dev d, long long *v);

#endif /* TALLY_NVML_EVENTS_H */
