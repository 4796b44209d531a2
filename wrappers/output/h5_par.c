/*
 * h5_par.c - parallel HDF5 settings for many ranks (docs/scale.md).
 *
 * - Metadata: every rank reads and writes HDF5 metadata collectively
 *   (H5Pset_all_coll_metadata_ops, H5Pset_coll_metadata_write): one rank
 *   reads and broadcasts instead of every rank reading the same block, and
 *   the metadata cache is flushed in one collective write instead of
 *   rank 0 writing it alone at close.
 * - Layout: contiguous datasets, no fill values (every row is written):
 *   each rank's rows are one hyperslab at its offset, so a table is one
 *   collective write with no chunk index to build; chunking would only
 *   add metadata (a B-tree entry per chunk) without reuse.
 * - Rows are packed into the file's type here (H5Tconvert) and written in
 *   that type: a conversion inside H5Dwrite makes HDF5 1.10 give up
 *   collective I/O for independent writes (H5D_MPIO_DATATYPE_CONVERSION)
 *   and zero two 1 MiB conversion buffers per table.
 * - Aggregation: collective buffering on for writes, data sieving off
 *   (ROMIO hints; Open MPI's OMPIO picks its aggregators itself and
 *   ignores the romio_ hints).  cb_nodes is left to the MPI library, which
 *   sizes it from the nodes and the file system (e.g. one per OST on Lustre).
 * - Row counts: one MPI_Exscan and one MPI_Allreduce of the vector of every
 *   table's local rows give each rank all its offsets and the totals.
 */
#include "output/h5_schema.h"

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "output/h5_par.h"

int tly_h5_par_fapl(hid_t fapl, MPI_Comm comm)
{
	MPI_Info info;
	int rc;

	PMPI_Info_create(&info);
	PMPI_Info_set(info, "romio_cb_write", "enable");
	PMPI_Info_set(info, "romio_ds_write", "disable");
	PMPI_Info_set(info, "cb_buffer_size", "16777216");
	rc = H5Pset_fapl_mpio(fapl, comm, info) < 0 ? -1 : 0;
	PMPI_Info_free(&info);
	if (!rc && (H5Pset_all_coll_metadata_ops(fapl, 1) < 0 || H5Pset_coll_metadata_write(fapl, 1) < 0))
		rc = -1;
	return rc;
}

hid_t tly_h5_par_dcpl(void)
{
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);

	if (dcpl >= 0)
		H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
	return dcpl;
}

void tly_h5_par_plan(MPI_Comm *comm, const int64_t *n, int nt, int64_t *off, int64_t *total)
{
	int rank;

	for (int i = 0; i < nt; i++) {
		off[i] = 0;
		total[i] = n[i];
	}
	if (!comm)
		return;
	PMPI_Exscan(n, off, nt, MPI_INT64_T, MPI_SUM, *comm);
	PMPI_Allreduce(n, total, nt, MPI_INT64_T, MPI_SUM, *comm);
	PMPI_Comm_rank(*comm, &rank);
	for (int i = 0; rank == 0 && i < nt; i++)
		off[i] = 0;     /* MPI_Exscan leaves rank 0's result undefined */
}

/* Does type t hold a variable-length sequence or string anywhere (1), or
 * not (0)?  -1 when HDF5 cannot tell. */
static int variable_parts(hid_t t)
{
	int v = 0, n;
	hid_t m;

	switch (H5Tget_class(t)) {
	case H5T_VLEN:
		return 1;
	case H5T_STRING:
		return H5Tis_variable_str(t) != 0;
	case H5T_ARRAY:
		m = H5Tget_super(t);
		v = m < 0 ? -1 : variable_parts(m);
		if (m >= 0)
			H5Tclose(m);
		return v;
	case H5T_COMPOUND:
		n = H5Tget_nmembers(t);
		if (n < 0)
			return -1;
		for (int i = 0; i < n && v == 0; i++) {
			m = H5Tget_member_type(t, (unsigned)i);
			v = m < 0 ? -1 : variable_parts(m);
			if (m >= 0)
				H5Tclose(m);
		}
		return v;
	case H5T_NO_CLASS:
		return -1;
	default:
		return 0;
	}
}

/* The n rows in the dataset's own (packed) type, or NULL: types with
 * variable-length parts are left to HDF5, as is anything that fails here. */
static void *packed(hid_t mem, hid_t ft, int64_t n, const void *rows)
{
	size_t msz = H5Tget_size(mem), fsz = H5Tget_size(ft), big = msz > fsz ? msz : fsz;
	void *buf, *bkg;

	if (!msz || !fsz || variable_parts(mem) != 0 || variable_parts(ft) != 0)
		return NULL;
	buf = malloc((size_t)n * big);
	bkg = calloc((size_t)n, fsz);
	if (buf && bkg) {
		memcpy(buf, rows, (size_t)n * msz);
		if (H5Tconvert(mem, ft, (size_t)n, buf, bkg, H5P_DEFAULT) < 0) {
			free(buf);
			buf = NULL;
		}
	} else {
		free(buf);
		buf = NULL;
	}
	free(bkg);
	return buf;
}

herr_t tly_h5_par_write_rows(hid_t ds, hid_t mem, hid_t fs, hid_t dxpl, int64_t off, int64_t n,
			     const void *rows)
{
	hsize_t dn = (hsize_t)(n ? n : 1), doff = (hsize_t)off, dcnt = (hsize_t)n;
	hid_t ms = H5Screate_simple(1, &dn, NULL), ft = H5Dget_type(ds);
	void *pk = NULL;
	herr_t rc;

	if (n) {
		H5Sselect_hyperslab(fs, H5S_SELECT_SET, &doff, NULL, &dcnt, NULL);
		if (ft >= 0 && H5Tequal(ft, mem) <= 0)
			pk = packed(mem, ft, n, rows);
	} else {
		H5Sselect_none(fs);
		H5Sselect_none(ms);
	}
	/* In the file's type, every rank alike (a rank without rows too):
	 * HDF5 then converts nothing, so the write stays collective. */
	if (pk || (!n && ft >= 0 && variable_parts(ft) == 0))
		rc = H5Dwrite(ds, ft, ms, fs, dxpl, pk);
	else
		rc = H5Dwrite(ds, mem, ms, fs, dxpl, rows);
	free(pk);
	if (ft >= 0)
		H5Tclose(ft);
	H5Sclose(ms);
	return rc;
}

uint32_t tly_h5_par_not_collective(hid_t dxpl)
{
	uint32_t local = 0, global = 0;

	if (H5Pget_mpio_no_collective_cause(dxpl, &local, &global) < 0)
		return 0;
	return global;
}
