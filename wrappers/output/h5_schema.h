/*
 * h5_schema.h - C rows and HDF5 types of the tables in schema.def.
 */
#ifndef TALLY_H5_SCHEMA_H
#define TALLY_H5_SCHEMA_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

#include "output/out_records.h"

#define TLY_C_I32 int32_t
#define TLY_C_I64 int64_t
#define TLY_C_STR32 char
#define TLY_C_STR64 char
#define TLY_C_STR256 char
#define TLY_C_STR512 char
#define TLY_C_STR1024 char
#define TLY_C_STR8192 char
#define TLY_C_CNT int64_t
#define TLY_C_HIST int64_t
#define TLY_C_F64 double
#define TLY_N_I32
#define TLY_N_I64
#define TLY_N_STR32 [32]
#define TLY_N_STR64 [64]
#define TLY_N_STR256 [256]
#define TLY_N_STR512 [512]
#define TLY_N_STR1024 [1024]
#define TLY_N_STR8192 [8192]
#define TLY_N_CNT [TLY_RT_MAX_EVENTS]
#define TLY_N_HIST [TLY_RT_HIST]
#define TLY_N_F64

#define TLY_SCHEMA_VERSION(v) enum { TLY_SCHEMA_VERSION = v };
#define TLY_ATTR(n, ty, doc)
#define TLY_TABLE(t, doc) struct tly_row_##t {
#define TLY_FIELD(t, f, ty, doc) TLY_C_##ty f TLY_N_##ty;
#define TLY_END(t) };
#include "output/schema.def"
#undef TLY_SCHEMA_VERSION
#undef TLY_TABLE
#undef TLY_FIELD
#undef TLY_END

#define TLY_SCHEMA_VERSION(v)
#define TLY_TABLE(t, doc) TLY_T_##t,
#define TLY_FIELD(t, f, ty, doc)
#define TLY_END(t)
enum tly_table {
#include "output/schema.def"
	TLY_NTABLES
};
#undef TLY_TABLE

struct tly_rows {
	void *t[TLY_NTABLES];
	int64_t n[TLY_NTABLES];
};

/* Memory and file types of every table; nev: entries of CNT columns. */
void tly_h5_types(hid_t *mem, hid_t *file, int nev);
extern const char *const tly_h5_table_names[];
extern const char *const tly_h5_table_docs[];
/* Bytes of one row of each table (the C structs above; output/out_tables.c). */
extern const size_t tly_row_sizes[];

#undef TLY_SCHEMA_VERSION
#undef TLY_ATTR
#undef TLY_FIELD
#undef TLY_END
#endif
