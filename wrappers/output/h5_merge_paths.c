/*
 * h5_merge_paths.c - the sample_paths tables of a job's pieces made one
 * (output/h5_merge.c): each piece numbers its call-path nodes itself, so a
 * node is the same node in two pieces when its parent is the same merged
 * node and its frame (function, file, line, module, inlined) is the same.
 * Every piece gets a map from its ids to the merged ones, which the merge
 * applies to sample_paths.parent and samples.path.  Without this, a job of
 * several processes without MPI (torchrun's) read rank 1's samples through
 * rank 0's path table: wrong functions, ids past its end.
 */
#include "output/h5_merge_paths.h"

#include <stdlib.h>
#include <string.h>

/* Offsets of the members of one piece's row type; -1 when missing. */
struct layout {
	size_t sz;
	long id, parent, line, inlined;   /* 4-byte integers */
	long function, file, module;      /* fixed strings */
	size_t lfunction, lfile, lmodule;
};

static long member(hid_t mt, const char *name, H5T_class_t cls, size_t *len)
{
	int i = H5Tget_member_index(mt, name);
	hid_t t;
	long off = -1;

	if (len)
		*len = 0;
	if (i < 0)
		return -1;
	t = H5Tget_member_type(mt, (unsigned)i);
	if (H5Tget_class(t) == cls && (cls != H5T_INTEGER || H5Tget_size(t) == 4)) {
		off = (long)H5Tget_member_offset(mt, (unsigned)i);
		if (len)
			*len = H5Tget_size(t);
	}
	H5Tclose(t);
	return off;
}

static int layout_of(hid_t mt, struct layout *l)
{
	if (H5Tget_class(mt) != H5T_COMPOUND)
		return -1;
	l->sz = H5Tget_size(mt);
	l->id = member(mt, "id", H5T_INTEGER, NULL);
	l->parent = member(mt, "parent", H5T_INTEGER, NULL);
	l->line = member(mt, "line", H5T_INTEGER, NULL);
	l->inlined = member(mt, "inlined", H5T_INTEGER, NULL);
	l->function = member(mt, "function", H5T_STRING, &l->lfunction);
	l->file = member(mt, "file", H5T_STRING, &l->lfile);
	l->module = member(mt, "module", H5T_STRING, &l->lmodule);
	return l->id < 0 || l->parent < 0 || l->line < 0 || l->inlined < 0 || l->function < 0 || l->file < 0 ||
			       l->module < 0
		       ? -1
		       : 0;
}

static int32_t i32(const char *row, long off)
{
	int32_t v;

	memcpy(&v, row + off, sizeof v);
	return v;
}

static void set_i32(char *row, long off, int32_t v)
{
	memcpy(row + off, &v, sizeof v);
}

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n && s[i]; i++)   /* fixed strings: up to the first NUL */
		h = (h ^ s[i]) * 1099511628211ULL;
	return h * 1099511628211ULL;
}

/* The node's key under its merged parent. */
static uint64_t key_hash(const struct layout *l, const char *row, int32_t parent)
{
	uint64_t h = 1469598103934665603ULL;
	int32_t w[3] = { parent, i32(row, l->line), i32(row, l->inlined) };

	for (int i = 0; i < 3; i++)
		h = (h ^ (uint64_t)(uint32_t)w[i]) * 1099511628211ULL;
	h = mix(h, row + l->function, l->lfunction);
	h = mix(h, row + l->file, l->lfile);
	return mix(h, row + l->module, l->lmodule);
}

static int same_str(const char *a, const char *b, size_t n)
{
	return strncmp(a, b, n) == 0;
}

/* Is merged row x the node `row` of a piece under merged parent `parent`? */
static int same_node(const struct layout *l, const char *x, const char *row, int32_t parent)
{
	return i32(x, l->parent) == parent && i32(x, l->line) == i32(row, l->line) &&
	       i32(x, l->inlined) == i32(row, l->inlined) && same_str(x + l->function, row + l->function, l->lfunction) &&
	       same_str(x + l->file, row + l->file, l->lfile) && same_str(x + l->module, row + l->module, l->lmodule);
}

static int grow_slots(struct tly_merge_paths *mp)
{
	size_t cap = mp->nslots ? mp->nslots * 2 : 1024;
	int64_t *s = malloc(cap * sizeof *s);

	if (!s)
		return -1;
	for (size_t i = 0; i < cap; i++)
		s[i] = -1;
	for (size_t i = 0; i < mp->nslots; i++) {
		size_t at;

		if (mp->slots[i] < 0)
			continue;
		at = mp->hash[mp->slots[i]] & (cap - 1);
		while (s[at] >= 0)
			at = (at + 1) & (cap - 1);
		s[at] = mp->slots[i];
	}
	free(mp->slots);
	mp->slots = s;
	mp->nslots = cap;
	return 0;
}

/* The merged id of a piece's node (parent already merged); -1 on no memory. */
static int32_t intern(struct tly_merge_paths *mp, const struct layout *l, const char *row, int32_t parent)
{
	uint64_t h = key_hash(l, row, parent);
	size_t at;
	char *x;

	if ((size_t)(mp->n + 1) * 2 > mp->nslots && grow_slots(mp) != 0)
		return -1;
	for (at = h & (mp->nslots - 1); mp->slots[at] >= 0; at = (at + 1) & (mp->nslots - 1)) {
		int64_t k = mp->slots[at];

		if (mp->hash[k] == h && same_node(l, mp->rows + (size_t)k * l->sz, row, parent))
			return (int32_t)k;
	}
	if (mp->n == mp->cap) {
		int64_t cap = mp->cap ? mp->cap * 2 : 256;
		char *r = realloc(mp->rows, (size_t)cap * l->sz);
		uint64_t *hs = r ? realloc(mp->hash, (size_t)cap * sizeof *hs) : NULL;

		if (r)
			mp->rows = r;
		if (!hs)
			return -1;
		mp->hash = hs;
		mp->cap = cap;
	}
	x = mp->rows + (size_t)mp->n * l->sz;
	memcpy(x, row, l->sz);
	set_i32(x, l->id, (int32_t)mp->n);
	set_i32(x, l->parent, parent);
	mp->hash[mp->n] = h;
	mp->slots[at] = mp->n;
	return (int32_t)mp->n++;
}

/* One piece's rows: each node after its parent (a writer lists parents
 * first; any order is taken, in as many sweeps as the tree is deep). */
static int merge_piece(struct tly_merge_paths *mp, const struct layout *l, const char *rows, int64_t n, int32_t *map)
{
	int64_t left = n;

	for (int64_t i = 0; i < n; i++)
		map[i] = -2;   /* not yet merged */
	while (left > 0) {
		int64_t done = 0;

		for (int64_t r = 0; r < n; r++) {
			const char *row = rows + (size_t)r * l->sz;
			int32_t id = i32(row, l->id), par = i32(row, l->parent), np;

			if (id < 0 || id >= n || map[id] != -2)
				continue;
			if (par >= 0 && (par >= n || map[par] == -2))
				continue;   /* its parent first */
			np = par >= 0 ? map[par] : -1;
			if ((map[id] = intern(mp, l, row, np)) < 0)
				return -1;
			done++;
		}
		if (!done)
			break;   /* ids out of range, duplicates or a cycle: those nodes map to -1 */
		left -= done;
	}
	for (int64_t i = 0; i < n; i++)
		if (map[i] == -2)
			map[i] = -1;
	return 0;
}

int tly_merge_paths_unify(struct tly_merge_paths *mp, const hid_t *pieces, int npieces)
{
	memset(mp, 0, sizeof *mp);
	mp->type = -1;
	mp->map = calloc((size_t)(npieces ? npieces : 1), sizeof *mp->map);
	mp->nmap = calloc((size_t)(npieces ? npieces : 1), sizeof *mp->nmap);
	mp->npieces = npieces;
	if (!mp->map || !mp->nmap)
		return -1;
	for (int k = 0; k < npieces; k++) {
		hid_t ds = H5Lexists(pieces[k], "sample_paths", H5P_DEFAULT) > 0
				   ? H5Dopen2(pieces[k], "sample_paths", H5P_DEFAULT)
				   : -1;
		hid_t ft, mt, sp;
		hssize_t n;
		struct layout l;
		char *rows = NULL;
		int rc = 0;

		if (ds < 0)
			continue;
		ft = H5Dget_type(ds);
		mt = H5Tget_native_type(ft, H5T_DIR_ASCEND);
		sp = H5Dget_space(ds);
		n = H5Sget_simple_extent_npoints(sp);
		H5Sclose(sp);
		if (mp->type < 0) {
			mp->type = H5Tcopy(mt);
			mp->file_type = H5Tcopy(ft);
		}
		if (layout_of(mt, &l) != 0 || H5Tequal(mp->type, mt) <= 0)
			rc = -1;   /* pieces of different writers: the merge fails and says so */
		if (!rc && n > 0) {
			rows = calloc((size_t)n, l.sz);
			mp->map[k] = calloc((size_t)n, sizeof **mp->map);
			mp->nmap[k] = n;
			if (!rows || !mp->map[k] || H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) < 0 ||
			    merge_piece(mp, &l, rows, n, mp->map[k]) != 0)
				rc = -1;
		}
		free(rows);
		H5Tclose(mt);
		H5Tclose(ft);
		H5Dclose(ds);
		if (rc)
			return -1;
	}
	return 0;
}

int32_t tly_merge_paths_map(const struct tly_merge_paths *mp, int piece, int32_t id)
{
	if (piece < 0 || piece >= mp->npieces || !mp->map[piece] || id < 0 || id >= mp->nmap[piece])
		return -1;
	return mp->map[piece][id];
}

void tly_merge_paths_free(struct tly_merge_paths *mp)
{
	for (int k = 0; mp->map && k < mp->npieces; k++)
		free(mp->map[k]);
	free(mp->map);
	free(mp->nmap);
	free(mp->rows);
	free(mp->hash);
	free(mp->slots);
	if (mp->type >= 0) {
		H5Tclose(mp->type);
		H5Tclose(mp->file_type);
	}
	memset(mp, 0, sizeof *mp);
	mp->type = -1;
}
