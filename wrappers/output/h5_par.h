/*
 * h5_par.h - parallel HDF5 settings for many ranks (output/h5_par.c).
 */
#ifndef TALLY_H5_PAR_H
#define TALLY_H5_PAR_H

#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>

/* MPI-IO driver on comm with collective metadata and aggregation hints; 0 or -1. */
int tly_h5_par_fapl(hid_t fapl, MPI_Comm comm);
/* Dataset creation: contiguous, no fill values written. */
hid_t tly_h5_par_dcpl(void);
/* Each table's row offset for this rank and its total (comm NULL: serial). */
void tly_h5_par_plan(MPI_Comm *comm, const int64_t *n, int nt, int64_t *off, int64_t *total);

/* This rank's n rows at row offset off of dataset ds (file space fs of
 * the whole table), through dxpl; a rank without rows takes part with an
 * empty selection.  Only for a table of at least one row. */
herr_t tly_h5_par_write_rows(hid_t ds, hid_t mem, hid_t fs, hid_t dxpl, int64_t off, int64_t n,
			     const void *rows);

/* After a write through dxpl: why HDF5 did not write collectively on
 * some rank (H5D_MPIO_* bits of H5Pget_mpio_no_collective_cause), 0 when
 * it did. */
uint32_t tly_h5_par_not_collective(hid_t dxpl);

#endif
