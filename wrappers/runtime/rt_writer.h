/*
 * rt_writer.h - the writer as the runtime's exit paths and start-up call
 * it.  The runtime knows no writer header but the interface below both
 * (output/out_host.h, struct tly_out_writer): output/ defines its
 * `const struct tly_out_writer tly_out_writer_h5` (output/h5_load.c), which
 * the build lists in generated/rt_writers.c (TALLY_RT_WRITERS), the way
 * the start-up parts are listed; the runtime uses the first.  The other
 * way, the runtime's tly_out_host_rt (rt_host.c) gives the writer what it
 * needs of the runtime.
 */
#ifndef TALLY_RT_WRITER_H
#define TALLY_RT_WRITER_H

#include "output/out_host.h"

/* The writers the build enabled, NULL-terminated; the first is used. */
extern const struct tly_out_writer *const tly_rt_writers[];

#endif /* TALLY_RT_WRITER_H */
