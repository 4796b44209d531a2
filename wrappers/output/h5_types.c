/*
 * h5_types.c - HDF5 compound types built from schema.def.
 */
#include "output/h5_schema.h"

#include <stddef.h>

static hid_t str_type(size_t n)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	H5Tset_size(t, n);
	H5Tset_strpad(t, H5T_STR_NULLTERM);
	return t;
}

static hid_t i64_array(int n)
{
	hsize_t d = (hsize_t)(n > 0 ? n : 1);

	return H5Tarray_create2(H5T_NATIVE_INT64, 1, &d);
}

/* The HDF5 type of each field type of schema.def, named as the spec names
 * it (beside its C type, h5_schema.h): a type the spec adds without a line
 * here does not compile (size: the field's bytes in the C row).  A new id
 * the caller closes. */
#define TLY_H5_I32(nev, size) H5Tcopy(H5T_NATIVE_INT32)
#define TLY_H5_I64(nev, size) H5Tcopy(H5T_NATIVE_INT64)
#define TLY_H5_F64(nev, size) H5Tcopy(H5T_NATIVE_DOUBLE)
#define TLY_H5_STR32(nev, size) str_type(size)
#define TLY_H5_STR64(nev, size) str_type(size)
#define TLY_H5_STR256(nev, size) str_type(size)
#define TLY_H5_STR512(nev, size) str_type(size)
#define TLY_H5_STR1024(nev, size) str_type(size)
#define TLY_H5_STR8192(nev, size) str_type(size)
#define TLY_H5_CNT(nev, size) i64_array(nev)
#define TLY_H5_HIST(nev, size) i64_array(TLY_RT_HIST)

static void insert(hid_t h, const char *name, size_t off, hid_t ft)
{
	H5Tinsert(h, name, off, ft);
	H5Tclose(ft);
}

#define TLY_SCHEMA_VERSION(v)
#define TLY_ATTR(n, ty, doc)
#define TLY_TABLE(t, doc) { hid_t h = H5Tcreate(H5T_COMPOUND, sizeof(struct tly_row_##t)); mem[TLY_T_##t] = h;
#define TLY_FIELD(t, f, ty, doc) \
	insert(h, #f, offsetof(struct tly_row_##t, f), TLY_H5_##ty(nev, sizeof(((struct tly_row_##t *)0)->f)));
#define TLY_END(t) }

void tly_h5_types(hid_t *mem, hid_t *file, int nev)
{
#include "output/schema.def"
	for (int i = 0; i < TLY_NTABLES; i++) {
		file[i] = H5Tcopy(mem[i]);
		H5Tpack(file[i]);
	}
}
