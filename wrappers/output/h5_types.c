/*
 * h5_types.c - HDF5 compound types built from schema.def.
 */
#include "output/h5_schema.h"

#include <stddef.h>
#include <stdlib.h>

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

/* Type of one field kind (a new id the caller closes). */
static hid_t field_type(const char *ty, int nev)
{
	if (ty[0] == 'F')
		return H5Tcopy(H5T_NATIVE_DOUBLE);  /* F64 */
	switch (ty[0] == 'S' ? 'S' : ty[1]) {
	case '3': return H5Tcopy(H5T_NATIVE_INT32);
	case '6': return H5Tcopy(H5T_NATIVE_INT64);
	case 'S': return str_type((size_t)atoi(ty + 3));
	case 'N': return i64_array(nev);            /* CNT */
	default: return i64_array(TLY_RT_HIST);     /* HIST */
	}
}

static void insert(hid_t h, const char *name, size_t off, const char *ty, int nev)
{
	hid_t ft = field_type(ty, nev);

	H5Tinsert(h, name, off, ft);
	H5Tclose(ft);
}

#define TLY_SCHEMA_VERSION(v)
#define TLY_ATTR(n, ty, doc)
#define TLY_TABLE(t, doc) { hid_t h = H5Tcreate(H5T_COMPOUND, sizeof(struct tly_row_##t)); mem[TLY_T_##t] = h;
#define TLY_FIELD(t, f, ty, doc) insert(h, #f, offsetof(struct tly_row_##t, f), #ty, nev);
#define TLY_END(t) }

void tly_h5_types(hid_t *mem, hid_t *file, int nev)
{
#include "output/schema.def"
	for (int i = 0; i < TLY_NTABLES; i++) {
		file[i] = H5Tcopy(mem[i]);
		H5Tpack(file[i]);
	}
}
