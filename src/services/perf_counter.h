/*
 * perf_counter.h - opening one perf counter, and what the kernel lets us
 * open: the one place outside the perf_event component's event sets where
 * perf_event_open(2) is called.  Used by the component (its probe and its
 * groups), the CPU's rate (services/cpu_mhz.c), the runtime's clock
 * (rt_clock.c, through tally_shared.h) and the tests' harness (th_sys.c).
 */
#ifndef TALLY_SERVICES_PERF_COUNTER_H
#define TALLY_SERVICES_PERF_COUNTER_H

#include <linux/perf_event.h>

/* perf_event_open(2) through syscall(2); -1 with errno on failure. */
int tly_perf_open(struct perf_event_attr *attr, long pid, int cpu, int group_fd, unsigned long flags);
/* /proc/sys/kernel/perf_event_paranoid now (-99 when unreadable). */
int tly_perf_paranoid(void);
/* 0 when a counter (type, config) opens on the calling thread (user
 * domain only when exclude_kernel), else the errno; nothing stays open. */
/* a counting attr: disabled, no hypervisor, kernel excluded if asked */
void tly_perf_attr_plain(struct perf_event_attr *a, __u32 type, __u64 config, int exclude_kernel);
int tly_perf_opens(__u32 type, __u64 config, int exclude_kernel);

#endif /* TALLY_SERVICES_PERF_COUNTER_H */
