/*
 * th_sys.h - facts of the machine the tests compare against (th_sys.c).
 */
#ifndef TALLY_TH_SYS_H
#define TALLY_TH_SYS_H

/* /proc/sys/kernel/perf_event_paranoid now; -99 when unreadable. */
int th_paranoid(void);

/* Skip (exit 77, saying why) when the kernel opens no perf event at all,
 * not even a software task-clock on this thread: then nothing can be
 * counted.  Tests call it before initialising the library, so that a
 * library or component failure where the kernel can count is a failure,
 * not a skip. */
void th_need_sw_perf(void);

/* The calling thread's page faults so far (minor + major, as the kernel's
 * getrusage(RUSAGE_THREAD) books them): the ground truth for
 * perf::PAGE-FAULTS over a window.  Under ASan/UBSan the code between two
 * readings faults shadow and allocator pages beside the pages a test
 * touches, which this count includes. */
long long th_thread_faults(void);

#endif /* TALLY_TH_SYS_H */
