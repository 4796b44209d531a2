/*
 * out_file.h - the fallback directory for output files (docs/runtime.md,
 * "Output files"); how a file is written: out_stage.h.
 */
#ifndef TALLY_OUT_FILE_H
#define TALLY_OUT_FILE_H

#include <stddef.h>

/* A per-user private directory, $TMPDIR/tally-<uid> (else /tmp/tally-<uid>),
 * created 0700 and checked to be a real directory owned by this user with
 * no group or other access.  0, or -1 with a logged reason. */
int tly_out_private_dir(char *buf, size_t len);

#endif
