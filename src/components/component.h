/*
 * component.h - the one interface every counter source implements.
 *
 * A component is a `struct tly_component` filled with designated
 * initializers.  The core allocates `ctl_size` bytes of control state per
 * event set and hands it to the ctl_* hooks; a NULL hook means "not
 * supported" and the core returns the PAPI code for that (usually
 * PAPI_ECMP).  All hooks return PAPI_OK or a negative PAPI_E* code and set
 * the thread's error detail (tly_err_set) when they fail.
 *
 * Native events are identified inside a component by a 64-bit token whose
 * meaning is the component's own; the core maps (component, token, name)
 * triples to PAPI native event codes (see native.h).
 */
#ifndef TALLY_CORE_COMPONENT_H
#define TALLY_CORE_COMPONENT_H

#include <stddef.h>
#include <stdint.h>
#include "papi.h"

/* Options that apply to one event set's control state. */
struct tly_ctl_opts {
	int domain;       /* PAPI_DOM_* mask */
	int granularity;  /* PAPI_GRN_* */
	int inherit;      /* PAPI_INHERIT_ALL / PAPI_INHERIT_NONE */
	long attach_tid;  /* thread/process to measure; 0 = calling thread */
	int cpu;          /* CPU to measure (PAPI_CPU_ATTACH); -1 = any */
	int multiplex;    /* nonzero when the set is multiplexed */
	int mpx_sw;       /* PAPI_MULTIPLEX_FORCE_SW: the component rotates */
	long mpx_ns;      /* rotation period for component-driven rotation */
};

/*
 * Overflow callback a component calls from its signal handler, in the
 * thread that owns the counters: `tag` is what the core passed to
 * ctl_set_overflow, `pc` the interrupted program counter (from the sample
 * or the signal context), `uctx` the ucontext_t of the signal.  Must be
 * async-signal-safe.
 */
typedef void (*tly_ovf_cb)(void *arg, int tag, void *pc, void *uctx);

struct tly_component {
	const char *name;        /* "perf_event" */
	const char *short_name;  /* "perf" */
	const char *description;
	const char *version;
	size_t ctl_size;         /* bytes of per-event-set control state */
	/*
	 * deferred_init: 1 when `init` is costly (a GPU driver, NVML) and
	 * runs at the component's first use instead of in PAPI_library_init:
	 * its info, one of its events, an enumeration over it.  A program
	 * that never names the component never pays for it.  Presets never
	 * wake it (they map to the CPU's counters).
	 */
	int deferred_init;

	/*
	 * init: probe the source and fill `info` (counters, domains,
	 * granularities, pmu_names...).  On failure set info->disabled to a
	 * PAPI_E* code and info->disabled_reason to a sentence a user can act
	 * on; the component then stays listed but unusable.
	 */
	int (*init)(PAPI_component_info_t *info);
	void (*shutdown)(void);

	/*
	 * Native events.
	 * ntv_enum: PAPI_ENUM_FIRST sets *tok to the first event;
	 * PAPI_ENUM_EVENTS advances to the next event; PAPI_NTV_ENUM_UMASKS
	 * advances *tok (an event, or one of its umask variants) to the next
	 * umask variant of the same event.  Returns PAPI_ENOEVNT when done.
	 * ntv_lookup: validate a user-supplied name; return its token and
	 * canonical (fully qualified) name.
	 */
	int (*ntv_enum)(uint64_t *tok, int modifier);
	int (*ntv_lookup)(const char *name, uint64_t *tok, char *canon, size_t len);
	int (*ntv_name)(uint64_t tok, char *buf, size_t len);
	int (*ntv_describe)(uint64_t tok, const char *name, PAPI_event_info_t *info);

	/* Control state of one event set. */
	int (*ctl_init)(void *ctl, const struct tly_ctl_opts *opts);
	/* Program the n natives (by canonical name), replacing what was there.
	 * PAPI_ECNFLCT when they cannot be counted together. */
	int (*ctl_update)(void *ctl, const char *const *names, int n);
	int (*ctl_set_opts)(void *ctl, const struct tly_ctl_opts *opts);
	int (*ctl_start)(void *ctl);
	int (*ctl_stop)(void *ctl);
	/* Absolute counts since the last start/reset, one per native. */
	int (*ctl_read)(void *ctl, long long *vals);
	int (*ctl_reset)(void *ctl);
	void (*ctl_cleanup)(void *ctl);

	/* Optional (NULL = unsupported, the core answers PAPI_ECMP). */
	/* Sample native k every `threshold` events and call cb(arg, tag...)
	 * on each overflow while running; threshold 0 turns it off.  Takes
	 * effect at once (the set is stopped). */
	int (*ctl_set_overflow)(void *ctl, int k, long long threshold, int tag, tly_ovf_cb cb, void *arg);
	/* Of native k's overflow since the last start: the crossings not
	 * delivered (the component calls cb at most once per counter per
	 * signal) and the sampling period in effect (the threshold, or more
	 * where the component backed off).  NULL: nothing missed. */
	int (*ctl_ovf_account)(void *ctl, int k, long long *missed, long long *period);
	/* Fraction (0..1) of the enabled time each native was counted since
	 * the last start/reset; 1 for every native of a set not multiplexed. */
	int (*ctl_mpx_coverage)(void *ctl, double *fractions);

	/* Optional: the CPU's core PMU, for the preset maps.  Returns the
	 * name the component's event library gives the core PMU it detected
	 * (NULL: none), whether or not the kernel can program it, and sets
	 * *hw_ok to 1 when the kernel counts hardware events (0 if not).
	 * Valid from init to shutdown. */
	const char *(*core_pmu)(int *hw_ok);

	/* Optional: why the kernel may refuse to count, read now, for the
	 * note of a preset rejected with PAPI_EPERM (perf_event: the
	 * perf_event_paranoid level).  Writes a short phrase into buf and
	 * returns 1, or returns 0 when there is nothing to say. */
	int (*perm_note)(char *buf, size_t len);
};

/* The generated list of enabled components (components_list.c). */
extern const struct tly_component *const tly_components[];
extern const int tly_num_components;

#endif /* TALLY_CORE_COMPONENT_H */
