/*
 * rt_helper.h - helper commands of a wrapper script (rt_helper.c).
 */
#ifndef TALLY_RT_HELPER_H
#define TALLY_RT_HELPER_H

#include <stdint.h>

struct tly_rt_proc;

/* rt_helper.c: helper commands of a wrapper script are not ranks.  A shell
 * left unmeasured by name marks itself; a measured process notes at its
 * start whether such a shell started it (not exec'd it); at the end, 1
 * when it is a wrapper's helper of a job of several processes that did no
 * work of a rank (it writes nothing). */
void tly_rt_helper_mark_wrapper(const char *exe);
void tly_rt_helper_note_start(void);
int tly_rt_helper_skip(const struct tly_rt_proc *p, int64_t now);
#endif /* TALLY_RT_HELPER_H */
