/*
 * rt_proc.h - the process's measurement state (rt_proc.c; the record:
 * output/out_records.h), below every other file of the runtime.
 */
#ifndef TALLY_RT_PROC_H
#define TALLY_RT_PROC_H

#include "output/out_records.h"

struct tly_rt_proc *tly_rt_proc(void);

#endif /* TALLY_RT_PROC_H */
