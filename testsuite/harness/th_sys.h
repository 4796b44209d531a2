/*
 * th_sys.h - facts of the machine the tests compare against (th_sys.c).
 */
#ifndef TALLY_TH_SYS_H
#define TALLY_TH_SYS_H

/* /proc/sys/kernel/perf_event_paranoid now; -99 when unreadable. */
int th_paranoid(void);

#endif /* TALLY_TH_SYS_H */
