/*
 * out_tables.c - the tables' names and descriptions, from schema.def.
 * No HDF5 here: built into the preload library (module messages) and
 * into the HDF5 writer library (dataset names and docs).
 */
#include "output/h5_schema.h"

#define TLY_SCHEMA_VERSION(v)
#define TLY_ATTR(n, ty, doc)
#define TLY_TABLE(t, doc) #t,
#define TLY_FIELD(t, f, ty, doc)
#define TLY_END(t)
const char *const tly_h5_table_names[] = {
#include "output/schema.def"
};
#undef TLY_TABLE
#define TLY_TABLE(t, doc) doc,
const char *const tly_h5_table_docs[] = {
#include "output/schema.def"
};
#undef TLY_TABLE
#define TLY_TABLE(t, doc) sizeof(struct tly_row_##t),
const size_t tly_row_sizes[] = {
#include "output/schema.def"
};
