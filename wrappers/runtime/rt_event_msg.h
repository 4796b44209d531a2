/*
 * rt_event_msg.h - the one message about an event the runtime cannot use
 * (rt_event_msg.c): said once per job (rank 0, tly_rt_log_job) and once per
 * name, in one wording wherever it is found (the per-thread sets, the pass
 * planner); a name that is not known comes with the nearest known names.
 */
#ifndef TALLY_RT_EVENT_MSG_H
#define TALLY_RT_EVENT_MSG_H

#include <stddef.h>

/* `name` left out: unknown (with suggestions) or known but not countable
 * here.  Repeated calls for the same name say nothing. */
void tly_rt_event_left_out(const char *name);

/* The nearest known event names to `name` (presets and the CPU
 * component's natives, case-insensitive edit distance), comma-separated
 * into out; 0 when none is near enough. */
int tly_rt_event_suggest(const char *name, char *out, size_t cap);

#endif /* TALLY_RT_EVENT_MSG_H */
