/*
 * out_rows.h - the writer's side of the module list (out_rows.c).
 */
#ifndef TALLY_OUT_ROWS_H
#define TALLY_OUT_ROWS_H

#include "output/out_module.h"

/* Every module's rows into r, in list order (collective when c->comm). */
void tly_out_rows_build(const struct tly_out_ctx *c, struct tly_rows *r);
void tly_out_rows_free(struct tly_rows *r);
/* Every module's write() with context m, each followed by the writer
 * library's part for it with context c (output/h5_lib.h), in list order,
 * until one fails; m or c NULL: those are not run.  0 or -1. */
int tly_out_modules_write(const struct tly_out_ctx *m, const struct tly_out_ctx *c, hid_t file, hid_t dxpl);

#endif
