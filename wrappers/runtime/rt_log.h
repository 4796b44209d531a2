/*
 * rt_log.h - the runtime's messages (rt_log.c).
 */
#ifndef TALLY_RT_LOG_H
#define TALLY_RT_LOG_H

#include <stdarg.h>

void tly_rt_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tly_rt_vlog(int level, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* A message about the whole job (settings, events): said by the job's
 * first process only (MPI rank 0, or rank 0 of the launcher's environment,
 * which is known before MPI_Init), so once per job, not once per rank. */
void tly_rt_log_job(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* TALLY_RT_LOG_H */
