/*
 * h5_merge_paths.h - one sample_paths table from a job's pieces
 * (output/h5_merge_paths.c, used by output/h5_merge.c).
 */
#ifndef TALLY_H5_MERGE_PATHS_H
#define TALLY_H5_MERGE_PATHS_H

#include <hdf5.h>
#include <stddef.h>
#include <stdint.h>

struct tly_merge_paths {
	hid_t type, file_type;   /* the pieces' row type (memory, file); -1 when no piece has the table */
	char *rows;              /* merged rows, ids 0..n-1, parents first */
	int64_t n, cap;
	uint64_t *hash;          /* per merged row */
	int64_t *slots;          /* open addressing: merged row or -1 */
	size_t nslots;
	int32_t **map;           /* per piece: its id -> merged id (-1: not placed) */
	int64_t *nmap;
	int npieces;
};

/* Unify the sample_paths of pieces[0..npieces-1]: 0, or -1 when a piece's
 * table cannot be read or differs in type (the merge fails, says so and
 * keeps the pieces).  Free with tly_merge_paths_free either way. */
int tly_merge_paths_unify(struct tly_merge_paths *mp, const hid_t *pieces, int npieces);
/* The merged id of piece's path id; -1 for an id the piece does not have. */
int32_t tly_merge_paths_map(const struct tly_merge_paths *mp, int piece, int32_t id);
void tly_merge_paths_free(struct tly_merge_paths *mp);

#endif /* TALLY_H5_MERGE_PATHS_H */
