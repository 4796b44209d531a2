/*
 * nv_stub_rt.h - runtime stand-ins for NVTX tests that need no runtime
 * (schema validation, decoding, fuzzing).
 */
#ifndef TALLY_NV_STUB_RT_H
#define TALLY_NV_STUB_RT_H

#include "runtime/rt.h"

/* Lines tly_rt_log was asked to print so far. */
int tly_nvstub_logs(void);

#endif
