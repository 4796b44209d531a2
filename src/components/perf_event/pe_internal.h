/*
 * pe_internal.h - private interfaces of the perf_event component.
 *
 * Files:
 *   perf_event.c  the tly_component struct, init/shutdown, component info
 *   pe_probe.c    what the kernel allows (perf_event_open, hardware PMU,
 *                 perf_event_paranoid, rdpmc)
 *   pe_pmu_select.c which PMUs are offered and which is the core PMU
 *                 (the one presets map to), from libpfm4 and the kernel
 *   pe_swevents.c the kernel's software events when libpfm4 names none
 *                 (LIBPFM_FORCE_PMU, LIBPFM_DISABLED_PMUS=perf)
 *   pe_events.c   native events through libpfm4 (enumerate, look up,
 *                 name, describe, encode)
 *   pe_ctl.c      control state of one event set: start, stop, read
 *   pe_group.c    opening and closing a set's perf groups
 *   pe_rdpmc.c    user-space counter reads (perf_event_mmap_page)
 *   pe_count.h    their arithmetic: counter width, reset, wrap
 *   pe_pmceid.c   Arm common events the CPU PMU implements (PMCEID)
 *   pe_errno.c    errno -> PAPI code and message, in one place
 *   pe_budget.c   TALLY_PERF_MAX_COUNTERS, the testing counter budget
 *   pe_mpx.c      multiplexed reads (scaling, coverage) and the rotation
 *                 the component drives itself (FORCE_SW or over budget)
 *   pe_overflow.c sampling: ring buffers, signal set-up and dispatch
 *   pe_park.c     idle sets beyond a cap give their descriptors back
 *                 (the kernel's enable/disable walks every open event)
 *
 * Native event tokens (uint64_t):
 *   bits  0..31  libpfm4 event index (pfm_get_event_next() space), or
 *                with bit 48 set, a pe_swevents.c software event index
 *   bits 32..47  umask attribute index + 1 (0: the event without a umask)
 * A token names what enumeration produced; a looked-up name may carry more
 * modifiers (":u=1", several umasks), so the core keeps the canonical name
 * and ctl_update encodes names, never tokens.
 *
 * Names longer than PAPI_MAX_STR_LEN - 1 characters are rejected by
 * ntv_lookup with PAPI_EINVAL (never a valid libpfm4 name in practice).
 */
#ifndef TALLY_PE_INTERNAL_H
#define TALLY_PE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <linux/perf_event.h>
#include "papi.h"
#include "components/component.h"
#include "services/perf_counter.h"

#define TLY_PE_MAX_EVENTS 64  /* natives in one event set */
#define TLY_PE_MAX_PMUS PAPI_PMU_MAX
#define TLY_PE_NAME_LEN PAPI_MAX_STR_LEN

/* What init learnt; written once under the component's lock by init,
 * read-only afterwards (shutdown clears it). */
struct tly_pe_probe {
	int initialized;
	int hw_ok;            /* kernel counts PERF_TYPE_HARDWARE events */
	int hw_errno;         /* why not (errno of the probe) */
	int kernel_ok;        /* exclude_kernel=0 allowed for our own thread */
	int paranoid;         /* /proc/sys/kernel/perf_event_paranoid at init */
	int rdpmc_ok;         /* cap_user_rdpmc advertised and not disabled */
	int num_cntrs;        /* generic + fixed counters of the core PMU */
	int npmus;
	int pmus[TLY_PE_MAX_PMUS];  /* usable libpfm4 PMU ids (pfm_pmu_t) */
	int core_pmu;         /* libpfm4's detected core PMU (PFM_PMU_TYPE_CORE,
	                         present; the one presets map to), usable or
	                         not; -1: none */
	int core_ok;          /* the kernel has a core PMU too: core PMU device
	                         in sysfs and a hardware event opens */
	char core_why[1024];  /* why there is no usable core PMU ("" if core_ok) */
};

extern const struct tly_component tly_cmp_perf_event;

/* ---- pe_probe.c ---------------------------------------------------- */
/* Open a counting software task-clock on the calling thread; 0 or errno. */
int tly_pe_probe_sw(int exclude_kernel);
/* 0 when the kernel counts hardware instructions, else the errno. */
int tly_pe_probe_hw(int *rdpmc);
/* "vendor model" of CPU 0 from /proc/cpuinfo. */
void tly_pe_cpu_model(char *buf, size_t len);
/* What the component's init found (read anywhere; written by init). */
const struct tly_pe_probe *tly_pe_probe_get(void);
struct tly_pe_probe *tly_pe_probe_mut(void);
/* Fill the kernel's answers of `p` (paranoid, software, hardware, rdpmc);
 * 0 or the errno of the software probe. */
int tly_pe_probe_kernel(struct tly_pe_probe *p);

/* ---- pe_pmu_select.c ----------------------------------------------- */
/* Decide the PMUs offered and the core PMU (p->core_pmu, p->core_ok,
 * p->core_why) from libpfm4 and the kernel (p->hw_ok must be probed);
 * returns npmus. */
int tly_pe_pmus_scan(struct tly_pe_probe *p, int *core_cntrs);

/* ---- pe_swevents.c ------------------------------------------------- */
/* The kernel's software events, offered when libpfm4 names none. */
int tly_pe_sw_active(void);
int tly_pe_sw_count(void);                /* 0 when libpfm4 names them */
/* Index, attr and canonical name of a software event name; -1: not one;
 * -2: a bad modifier or a perf:: hardware name (error detail set).  attr, canon may be NULL. */
int tly_pe_sw_encode(const char *name, int domain, struct perf_event_attr *attr, char *canon, size_t len);
int tly_pe_sw_name(int i, char *buf, size_t len);
const char *tly_pe_sw_desc(int i);

/* ---- pe_events.c --------------------------------------------------- */
int tly_pe_ntv_enum(uint64_t *tok, int modifier);
int tly_pe_ntv_lookup(const char *name, uint64_t *tok, char *canon, size_t len);
int tly_pe_ntv_name(uint64_t tok, char *buf, size_t len);
int tly_pe_ntv_describe(uint64_t tok, const char *name, PAPI_event_info_t *info);
/* Encode a canonical name for perf_event_open with the PAPI domain mask
 * as default privilege levels.  PAPI_OK or PAPI_ENOEVNT (detail set). */
int tly_pe_encode(const char *name, int domain, struct perf_event_attr *attr);

/* ---- pe_ctl.c ------------------------------------------------------ */
/*
 * Counters are opened in sub-groups of one kind each: hardware, and each
 * software PMU (task-clock, cpu-clock, the other software events).  Linux
 * 6.x keeps one context per PMU, and a software sibling of another PMU's
 * leader silently stops counting after the group is disabled and enabled
 * again (measured on 6.18 with PERF_IOC_FLAG_GROUP, and after quick
 * enable/disable cycles without it), so kinds are never mixed.  A set of
 * one kind - the usual hardware set - is one group and one read().
 */
struct tly_pe_group {
	int n;                /* counters, in the order of the names */
	int nsub;             /* sub-groups */
	int nogroup;          /* kernel refused PERF_FORMAT_GROUP (inherit):
	                       * one counter per sub-group, plain format */
	int rdpmc;            /* all counters have a user page to read */
	int fds[TLY_PE_MAX_EVENTS];
	struct perf_event_mmap_page *pages[TLY_PE_MAX_EVENTS];
	int sub_fd[TLY_PE_MAX_EVENTS];     /* leader fd of each sub-group */
	int sub_start[TLY_PE_MAX_EVENTS];  /* first entry in pos[] */
	int sub_cnt[TLY_PE_MAX_EVENTS];
	size_t sub_bytes[TLY_PE_MAX_EVENTS]; /* size of one read() */
	int pos[TLY_PE_MAX_EVENTS];        /* name index, by sub-group */
	int sub_of[TLY_PE_MAX_EVENTS];     /* sub-group of each counter */
	int rd[TLY_PE_MAX_EVENTS];         /* 1 + index of the counter's value in
	                                    * a read() of its sub-group when its
	                                    * samples carry it (PERF_SAMPLE_READ,
	                                    * software clocks), else 0 */
	long long period[TLY_PE_MAX_EVENTS]; /* sample_period opened with (0: none) */
};

/* Multiplexing state: counters are opened one per perf group; slots of
 * up to `cap` counters are enabled in turn when the component rotates. */
struct tly_pe_mpx {
	int on;               /* opts.multiplex */
	int rotate;           /* the component rotates slots (timer) */
	int cap;              /* counters per slot */
	int nslot;
	int cur;              /* slot enabled now */
	int timer_on;
	timer_t timer;        /* rotation timer (CPU time of the owner) */
	volatile int busy;    /* a read is in progress in the owning thread */
	volatile int pending; /* rotation deferred by `busy` */
	uint64_t base_en[TLY_PE_MAX_EVENTS];  /* times at start/reset */
	uint64_t base_run[TLY_PE_MAX_EVENTS];
};

/* Overflow (sampling) state of the counters of one set. */
struct tly_pe_ovf {
	int any;              /* some counter samples */
	long long threshold[TLY_PE_MAX_EVENTS];
	int tag[TLY_PE_MAX_EVENTS];
	tly_ovf_cb cb;
	void *arg;
	void *ring[TLY_PE_MAX_EVENTS];        /* mmap'd sample buffers */
	int nclock;           /* sampling counters with g.rd (clocks) */
	/* thresholds accounted for (delivered or missed) since start/reset:
	 * from the counts of counters with g.rd, from the samples' periods of
	 * the others (settled against their count at stop); written by the
	 * owning thread's handler and start/stop/reset */
	long long done[TLY_PE_MAX_EVENTS];
	void *last_pc;   /* IP of the last sample drained: the PC of what PAPI_stop catches up */
	/* Bounded delivery (pe_overflow.c): crossings not delivered since
	 * start, the sampling period in effect (the threshold, or more once
	 * signals came too close), the counters served by the signal being
	 * handled, and the pacing of signals (monotonic ns at the last
	 * handler's exit, signals in a row that came too close). */
	long long missed[TLY_PE_MAX_EVENTS];
	long long period[TLY_PE_MAX_EVENTS];
	/* the period before the last back-off and when it changed
	 * (monotonic ns): a sample taken before counts the old period */
	long long prev_period[TLY_PE_MAX_EVENTS];
	uint64_t period_ns[TLY_PE_MAX_EVENTS];
	unsigned char given[TLY_PE_MAX_EVENTS];
	int at_stop; /* PAPI_stop's flush: one call per counter, not per sample */
	uint64_t out_ns;
	int tight;
};

struct tly_pe_ctl {
	struct tly_ctl_opts opts;
	struct tly_pe_group g;
	struct tly_pe_mpx mpx;
	struct tly_pe_ovf ovf;
	/* one group read: nr, time_enabled, time_running, values[n] */
	uint64_t buf[3 + TLY_PE_MAX_EVENTS];
	/* PAPI_reset of a running set read from user space: the counts at
	 * the reset, subtracted from every read until the next start (no
	 * system call, and the kernel's page is never left relative to a
	 * raw counter value, pe_count.h) */
	int based;
	long long base[TLY_PE_MAX_EVENTS];
	char names[TLY_PE_MAX_EVENTS][TLY_PE_NAME_LEN];
	/* pe_park.c: open and not running (counted), or parked: closed,
	 * reopened for parked_n events by the thread tid opened them for */
	int idle, parked_n;
	long tid;
};

/* ---- pe_group.c ---------------------------------------------------- */
/* The group opened for names with o, o not kept (pe_park.c wakes a set
 * with the thread it counted); the descriptors closed, names and options
 * kept. */
int tly_pe_ctl_open_as(struct tly_pe_ctl *c, const struct tly_ctl_opts *o, const char *const *names, int n);
void tly_pe_ctl_close(struct tly_pe_ctl *c);
/* An empty group (no descriptors); close one (unmapping its pages). */
void tly_pe_group_clear(struct tly_pe_group *g);
void tly_pe_group_close(struct tly_pe_group *g);
/* Open the group for names with o and the overflow settings of c into g
 * (c->g untouched); PAPI_OK or the error, detail set. */
int tly_pe_group_open(const struct tly_pe_ctl *c, const struct tly_ctl_opts *o, const char *const *names, int n,
                      struct tly_pe_group *g);

/* pe_park.c.  After a (re)open of a set that is not running: counted
 * idle, or parked at once when too many are. */
void tly_pe_park_opened(struct tly_pe_ctl *c);
/* Before a start (or anything that needs the descriptors): reopened when
 * parked, no longer idle.  PAPI_OK or the reopen's error. */
int tly_pe_park_wake(struct tly_pe_ctl *c);
/* After a stop: idle, or parked when too many sets are idle. */
void tly_pe_park_stopped(struct tly_pe_ctl *c);
/* At cleanup: no longer counted. */
void tly_pe_park_forget(struct tly_pe_ctl *c);

int tly_pe_ctl_init(void *ctl, const struct tly_ctl_opts *opts);
int tly_pe_ctl_update(void *ctl, const char *const *names, int n);
int tly_pe_ctl_set_opts(void *ctl, const struct tly_ctl_opts *opts);
int tly_pe_ctl_start(void *ctl);
int tly_pe_ctl_stop(void *ctl);
int tly_pe_ctl_read(void *ctl, long long *vals);
int tly_pe_ctl_reset(void *ctl);
void tly_pe_ctl_cleanup(void *ctl);
/* The vtable's overflow entry: thresholds kept, the group reopened with
 * sampling fields (pe_overflow.c maps and serves them). */
int tly_pe_ctl_set_overflow(void *ctl, int k, long long threshold, int tag, tly_ovf_cb cb, void *arg);
/* The fds, sub-group by sub-group, each leader first; returns how many. */
int tly_pe_ctl_fds(void *ctl, int *fds, int max);
/* Leader fd and read() size of each sub-group; returns how many (for the
 * benchmark's bare-syscall floor). */
int tly_pe_ctl_groups(void *ctl, int *fds, size_t *bytes, int max);

/* Open the group for `names` with `o` (and the overflow settings of c);
 * replaces c->g on success. */
int tly_pe_ctl_reopen(struct tly_pe_ctl *c, const struct tly_ctl_opts *o, const char *const *names, int n);

/* Canonical names of the counters (for re-opening); returns how many. */
int tly_pe_ctl_names(const struct tly_pe_ctl *c, const char **names);

/* ---- pe_budget.c --------------------------------------------------- */
/* TALLY_PERF_MAX_COUNTERS (a testing knob): counters the component
 * believes it has, for every event kind; 0 when unset (no budget). */
int tly_pe_budget(void);
/* PAPI_ECNFLCT (detail set) when n counters exceed the budget. */
int tly_pe_budget_check(int n);

/* ---- pe_mpx.c ------------------------------------------------------ */
/* Plan slots after the group is open (opts.multiplex). */
void tly_pe_mpx_plan(struct tly_pe_ctl *c);
int tly_pe_mpx_start(struct tly_pe_ctl *c);
int tly_pe_mpx_stop(struct tly_pe_ctl *c);
int tly_pe_mpx_reset(struct tly_pe_ctl *c);
int tly_pe_mpx_read(struct tly_pe_ctl *c, long long *vals);
int tly_pe_ctl_mpx_coverage(void *ctl, double *fractions);
/* Scaled estimate count * total / running, never negative or wrapped. */
long long tly_pe_mpx_scale(uint64_t count, uint64_t total, uint64_t running);

/* ---- pe_overflow.c ------------------------------------------------- */
/* Sampling fields of counter i's attr (called while opening). */
void tly_pe_ovf_attr(const struct tly_pe_ctl *c, int i, int inherit, struct perf_event_attr *a);
/* Map rings after open; unmap before close. */
int tly_pe_ovf_map(struct tly_pe_ctl *c);
void tly_pe_ovf_unmap(struct tly_pe_ctl *c);
/* Route signals to the calling thread (start) and stop routing (stop). */
int tly_pe_ovf_start(struct tly_pe_ctl *c);
void tly_pe_ovf_stop(struct tly_pe_ctl *c);
/* After the counters were reset: forget samples and crossings so far. */
void tly_pe_ovf_reset(struct tly_pe_ctl *c);
/* CLOCK_MONOTONIC time (ns) of the sample being dispatched in this thread
 * (for the latency benchmark); 0 outside a dispatch. */
uint64_t tly_pe_ovf_sample_ns(void);
/* Crossings of counter k not delivered since the last start, and the
 * sampling period in effect (ctl_ovf_account of the vtable). */
int tly_pe_ctl_ovf_account(void *ctl, int k, long long *missed, long long *period);
/* The running set of the calling thread that signal handlers act on. */
void tly_pe_thread_set(struct tly_pe_ctl *c);
struct tly_pe_ctl *tly_pe_thread_get(void);

/* ---- pe_rdpmc.c ---------------------------------------------------- */
/* Map the user page of fd when it advertises cap_user_rdpmc; NULL when
 * not (software events, other architectures, disabled). */
struct perf_event_mmap_page *tly_pe_rdpmc_map(int fd);
/* Ask the kernel for user-space reads of a per-thread counter where the
 * architecture needs the event to request them (arm64: config1 bit 1
 * when kernel.perf_user_access is 1); no-op elsewhere. */
void tly_pe_rdpmc_attr(struct perf_event_attr *a);
void tly_pe_rdpmc_unmap(struct perf_event_mmap_page *pg);
/* TALLY_PERF_RDPMC=0 disables user-space reads. */
int tly_pe_rdpmc_allowed(void);
/* Count of one counter from user space: PAPI_OK, or PAPI_ECMP when the
 * page says the counter is not readable now (caller falls back to read). */
int tly_pe_rdpmc_read(const struct perf_event_mmap_page *pg, long long *val);
/* The same for counters 0..n-1 (the read hot path, no call per counter);
 * PAPI_ECMP as soon as one is not readable. */
int tly_pe_rdpmc_read_all(struct perf_event_mmap_page *const *pages, int n, long long *vals);

/* ---- pe_pmceid.c --------------------------------------------------- */
/* PAPI_ENOEVNT (detail set) when `a` is an Arm common event the CPU PMU
 * does not advertise in PMCEID (sysfs events/); PAPI_OK otherwise. */
int tly_pe_pmu_implements(const struct perf_event_attr *a, const char *name);

/* ---- pe_errno.c ---------------------------------------------------- */
enum tly_pe_op {
	TLY_PE_OP_OPEN,        /* opening a group leader or lone counter */
	TLY_PE_OP_OPEN_MEMBER, /* adding a counter to an existing group */
	TLY_PE_OP_IOCTL,
	TLY_PE_OP_READ,
	TLY_PE_OP_PROBE,       /* init probing the kernel */
};
/* errno (positive) -> PAPI_E* for an operation. */
int tly_pe_errno_code(int err, int op);
/* Map, set the thread's detail naming the event and the remedy, return. */
int tly_pe_fail(int err, int op, const char *event);

#endif /* TALLY_PE_INTERNAL_H */
