/*
 * h5_merge.c - the pieces of a job without MPI (one file per process, in
 * the job directory, runtime/rt_job.c) become one job file with the same
 * schema as the collective MPI path writes.
 *
 * Every dataset of every piece (the tables of schema.def and the NVTX
 * payload datasets) is concatenated in rank order, with its type and
 * attributes taken from the first piece that has it.  Tables without a
 * 'rank' member are job-wide: 'regions' is unified by (path, kind) and
 * every integer 'region' member is renumbered; 'sample_paths' is unified
 * node by node (output/h5_merge_paths.c) and every integer 'path' member
 * renumbered; the others (events) are the first piece's.  Pieces whose
 * row types differ (different events) cannot be concatenated: the merge
 * fails, says so and leaves the pieces, which tally-report reads as a
 * directory.
 */
#include "output/h5_schema.h"
#include "output/h5_merge_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/out_file.h"
#include "output/out_host.h"
#include "output/out_stage.h"
#include "output/output.h"

#define TLY_MAX_PIECES 4096

struct piece {
	hid_t f;
	int32_t *remap;       /* old region id -> merged id */
	int64_t nregions;
};

struct merge {
	struct piece *p;
	int n;
	char (*paths)[256];   /* datasets of all pieces */
	int npaths;
	/* merged region table */
	char *reg;
	int64_t nreg;
	hid_t regtype;
	struct tly_merge_paths spaths;   /* merged sample_paths */
	int failed;
};

static herr_t collect(hid_t obj, const char *name, const H5O_info_t *info, void *ud)
{
	struct merge *m = ud;

	(void)obj;
	if (info->type != H5O_TYPE_DATASET)
		return 0;
	for (int i = 0; i < m->npaths; i++)
		if (!strcmp(m->paths[i], name))
			return 0;
	if (m->npaths % 64 == 0) {
		void *x = realloc(m->paths, (size_t)(m->npaths + 64) * sizeof *m->paths);

		if (!x)
			return -1;
		m->paths = x;
	}
	snprintf(m->paths[m->npaths++], sizeof *m->paths, "%s", name);
	return 0;
}

/* Rows of one dataset in its native type; NULL with *n = 0 when empty. */
static void *read_rows(hid_t ds, hid_t mt, int64_t *n)
{
	hid_t sp = H5Dget_space(ds);
	hssize_t k = H5Sget_simple_extent_npoints(sp);
	size_t sz = H5Tget_size(mt);
	void *buf = NULL;

	H5Sclose(sp);
	*n = k > 0 ? (int64_t)k : 0;
	if (!*n)
		return NULL;
	buf = calloc((size_t)*n, sz);
	if (buf && H5Dread(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
		free(buf);
		buf = NULL;
		*n = 0;
	}
	return buf;
}

/* Offset of an integer member called `name`, -1 when there is none. */
static long int_member(hid_t mt, const char *name)
{
	int i = H5Tget_class(mt) == H5T_COMPOUND ? H5Tget_member_index(mt, name) : -1;
	hid_t t;
	long off;

	if (i < 0)
		return -1;
	t = H5Tget_member_type(mt, (unsigned)i);
	off = H5Tget_class(t) == H5T_INTEGER && H5Tget_size(t) == 4 ? (long)H5Tget_member_offset(mt, (unsigned)i) : -1;
	H5Tclose(t);
	return off;
}


/* The regions of every piece unified by (path, kind), parents first (a
 * piece lists a parent before its children). */
static int unify_regions(struct merge *m)
{
	for (int k = 0; k < m->n; k++) {
		hid_t ds = H5Dopen2(m->p[k].f, "regions", H5P_DEFAULT), ft, mt;
		int64_t n = 0;
		char *rows;
		size_t sz;
		long oid, opar, okind, opath;

		if (ds < 0)
			continue;
		ft = H5Dget_type(ds);
		mt = H5Tget_native_type(ft, H5T_DIR_ASCEND);
		rows = read_rows(ds, mt, &n);
		sz = H5Tget_size(mt);
		oid = int_member(mt, "id");
		opar = int_member(mt, "parent");
		okind = int_member(mt, "kind");
		opath = (long)H5Tget_member_offset(mt, (unsigned)H5Tget_member_index(mt, "path"));
		if (m->regtype < 0)
			m->regtype = H5Tcopy(mt);
		else if (H5Tequal(m->regtype, mt) <= 0)
			m->failed = 1;
		m->p[k].remap = calloc((size_t)(n ? n : 1), sizeof *m->p[k].remap);
		m->p[k].nregions = n;
		for (int64_t r = 0; r < n && !m->failed && m->p[k].remap; r++) {
			char *row = rows + (size_t)r * sz;
			int32_t id = *(int32_t *)(row + oid), par = *(int32_t *)(row + opar), kind = *(int32_t *)(row + okind);
			int64_t at = 0;

			for (; at < m->nreg; at++) {
				char *x = m->reg + (size_t)at * sz;

				if (*(int32_t *)(x + okind) == kind && !strcmp(x + opath, row + opath))
					break;
			}
			if (at == m->nreg) {
				char *x = realloc(m->reg, (size_t)(m->nreg + 1) * sz);

				if (!x) {
					m->failed = 1;
					break;
				}
				m->reg = x;
				memcpy(m->reg + (size_t)at * sz, row, sz);
				*(int32_t *)(m->reg + (size_t)at * sz + oid) = (int32_t)at;
				*(int32_t *)(m->reg + (size_t)at * sz + opar) =
					par >= 0 && par < n ? m->p[k].remap[par] : -1;
				m->nreg++;
			}
			if (id >= 0 && id < n)
				m->p[k].remap[id] = (int32_t)at;
		}
		free(rows);
		H5Tclose(mt);
		H5Tclose(ft);
		H5Dclose(ds);
	}
	return m->failed ? -1 : 0;
}

/* The pieces' call-path nodes made one (output/h5_merge_paths.c). */
static int unify_paths(struct merge *m)
{
	hid_t *f = malloc(sizeof *f * (size_t)m->n);
	int rc;

	if (!f)
		return -1;
	for (int k = 0; k < m->n; k++)
		f[k] = m->p[k].f;
	rc = tly_merge_paths_unify(&m->spaths, f, m->n);
	free(f);
	return rc;
}

static herr_t copy_one_attr(hid_t loc, const char *name, const H5A_info_t *info, void *ud)
{
	hid_t dst = *(hid_t *)ud, a = H5Aopen(loc, name, H5P_DEFAULT), t = H5Aget_type(a), sp = H5Aget_space(a);
	size_t sz = H5Tget_size(t) * (size_t)(H5Sget_simple_extent_npoints(sp) > 0 ? H5Sget_simple_extent_npoints(sp) : 1);
	void *buf = calloc(1, sz);
	hid_t b;

	(void)info;
	if (buf && H5Aread(a, t, buf) >= 0 && H5Aexists(dst, name) <= 0) {
		b = H5Acreate2(dst, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
		if (b >= 0) {
			H5Awrite(b, t, buf);
			H5Aclose(b);
		}
	}
	free(buf);
	H5Sclose(sp);
	H5Tclose(t);
	H5Aclose(a);
	return 0;
}

static void copy_attrs(hid_t src, hid_t dst)
{
	hsize_t idx = 0;

	H5Aiterate2(src, H5_INDEX_NAME, H5_ITER_INC, &idx, copy_one_attr, &dst);
}

/* Write rows (n of type mt) as dataset `name`, creating its groups. */
static int write_rows(hid_t out, const char *name, hid_t ft, hid_t mt, const void *rows, int64_t n, hid_t attrs_of)
{
	hsize_t dn = (hsize_t)n;
	hid_t lcpl = H5Pcreate(H5P_LINK_CREATE), sp, ds;
	herr_t rc = 0;

	H5Pset_create_intermediate_group(lcpl, 1);
	sp = H5Screate_simple(1, &dn, NULL);
	ds = H5Dcreate2(out, name, ft, sp, lcpl, H5P_DEFAULT, H5P_DEFAULT);
	H5Pclose(lcpl);
	if (ds < 0) {
		H5Sclose(sp);
		return -1;
	}
	if (n)
		rc = H5Dwrite(ds, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows);
	copy_attrs(attrs_of, ds);
	H5Dclose(ds);
	H5Sclose(sp);
	return rc < 0 ? -1 : 0;
}

/* Concatenate dataset `name` over the pieces (or take the job-wide one). */
static int merge_dataset(struct merge *m, hid_t out, const char *name)
{
	hid_t ft = -1, mt = -1, first = -1;
	char *all = NULL;
	int64_t total = 0;
	size_t sz = 0;
	int rc = 0, jobwide = 0;
	long oreg = -1, opath = -1;

	if (!strcmp(name, "regions")) {
		hid_t ds = H5Dopen2(m->p[0].f, name, H5P_DEFAULT), t = H5Dget_type(ds);

		rc = write_rows(out, name, t, m->regtype, m->reg, m->nreg, ds);
		H5Tclose(t);
		H5Dclose(ds);
		return rc;
	}
	if (!strcmp(name, "sample_paths") && m->spaths.type >= 0) {
		for (int k = 0; k < m->n; k++)
			if (H5Lexists(m->p[k].f, name, H5P_DEFAULT) > 0) {
				hid_t ds = H5Dopen2(m->p[k].f, name, H5P_DEFAULT);

				rc = write_rows(out, name, m->spaths.file_type, m->spaths.type, m->spaths.rows, m->spaths.n, ds);
				H5Dclose(ds);
				return rc;
			}
	}
	for (int k = 0; k < m->n && !rc; k++) {
		hid_t ds = H5Lexists(m->p[k].f, name, H5P_DEFAULT) > 0 ? H5Dopen2(m->p[k].f, name, H5P_DEFAULT) : -1;
		hid_t t, nt;
		int64_t n = 0;
		char *rows, *x;

		if (ds < 0)
			continue;
		t = H5Dget_type(ds);
		nt = H5Tget_native_type(t, H5T_DIR_ASCEND);
		if (first < 0) {
			first = ds;
			ft = t;
			mt = nt;
			sz = H5Tget_size(mt);
			jobwide = H5Tget_class(mt) == H5T_COMPOUND && H5Tget_member_index(mt, "rank") < 0;
			oreg = int_member(mt, "region");
			opath = int_member(mt, "path");   /* samples: a sample_paths id */
		} else if (H5Tequal(nt, mt) <= 0) {
			tly_out_log(1, "job pieces differ in table %s (different events?): cannot be merged", name);
			rc = -1;
		}
		rows = rc ? NULL : read_rows(ds, mt, &n);
		for (int64_t r = 0; oreg >= 0 && r < n; r++) {
			int32_t *v = (int32_t *)(rows + (size_t)r * sz + oreg);

			*v = *v >= 0 && *v < m->p[k].nregions ? m->p[k].remap[*v] : -1;
		}
		for (int64_t r = 0; opath >= 0 && r < n; r++) {
			int32_t *v = (int32_t *)(rows + (size_t)r * sz + opath);

			*v = tly_merge_paths_map(&m->spaths, k, *v);
		}
		x = n ? realloc(all, (size_t)(total + n) * sz) : all;
		if (n && x) {
			memcpy(x + (size_t)total * sz, rows, (size_t)n * sz);
			all = x;
			total += n;
		}
		free(rows);
		if (ds != first) {
			H5Tclose(nt);
			H5Tclose(t);
			H5Dclose(ds);
		}
		if (jobwide && total)
			break;    /* events, pass_checks: the first piece's */
	}
	if (!rc && first >= 0)
		rc = write_rows(out, name, ft, mt, all, total, first);
	free(all);
	if (first >= 0) {
		H5Tclose(mt);
		H5Tclose(ft);
		H5Dclose(first);
	}
	return rc;
}

/* Read (write 0) or write (write 1) the attribute name of f as type ty. */
static void attr_rw(hid_t f, const char *name, hid_t ty, void *v, int write)
{
	hid_t a = H5Aopen(f, name, H5P_DEFAULT);

	if (a >= 0) {
		if (write)
			H5Awrite(a, ty, v);
		else
			H5Aread(a, ty, v);
		H5Aclose(a);
	}
}

/* Root attributes: the first piece's, with the job's size and times
 * (write_seconds: the longest write, in seconds since schema 4). */
static void merge_attrs(struct merge *m, hid_t out, int size)
{
	int64_t st = 0, et = 0;
	int32_t partial = 0, nr = size, none = -1;
	double ws = 0;

	attr_rw(m->p[0].f, "start_time", H5T_NATIVE_INT64, &st, 0);
	copy_attrs(m->p[0].f, out);
	for (int k = 0; k < m->n; k++) {
		int64_t s = 0, e = 0;
		int32_t part = 0;
		double w = 0;

		attr_rw(m->p[k].f, "start_time", H5T_NATIVE_INT64, &s, 0);
		attr_rw(m->p[k].f, "end_time", H5T_NATIVE_INT64, &e, 0);
		attr_rw(m->p[k].f, "write_seconds", H5T_NATIVE_DOUBLE, &w, 0);
		attr_rw(m->p[k].f, "partial", H5T_NATIVE_INT32, &part, 0);
		partial |= part != 0;
		st = s < st ? s : st;
		et = e > et ? e : et;
		ws = w > ws ? w : ws;
	}
	partial = m->n < size || partial;
	attr_rw(out, "nranks", H5T_NATIVE_INT32, &nr, 1);
	attr_rw(out, "partial", H5T_NATIVE_INT32, &partial, 1);
	attr_rw(out, "partial_rank", H5T_NATIVE_INT32, &none, 1);
	attr_rw(out, "start_time", H5T_NATIVE_INT64, &st, 1);
	attr_rw(out, "end_time", H5T_NATIVE_INT64, &et, 1);
	attr_rw(out, "write_seconds", H5T_NATIVE_DOUBLE, &ws, 1);
}

static int open_pieces(struct merge *m, const char *dir, int size)
{
	char path[1400];

	m->p = calloc((size_t)size, sizeof *m->p);
	for (int r = 0; m->p && r < size; r++) {
		hid_t f;

		snprintf(path, sizeof path, "%s/rank%05d.h5", dir, r);
		f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
		if (f >= 0)
			m->p[m->n++].f = f;
	}
	return m->n ? 0 : -1;
}

/* The merged file under its name, never replacing another file unless
 * TALLY_OUTPUT_REPLACE says so (a numbered name otherwise, told, and
 * left in path for the caller's message). */
static int publish(struct tly_out_stage *st, char *path, size_t len)
{
	char final[1300], where[1600];
	int e = tly_out_stage_publish(st, path, tly_out_proc()->opt.output_replace, final, sizeof final);

	if (e) {
		tly_out_log(1, "cannot rename the merged file to %s (%s); the measurement stays in %s", final,
			    strerror(-e), tly_out_stage_where(st, where, sizeof where));
		tly_out_stage_close(st);
		return -1;
	}
	if (strcmp(final, path)) {
		tly_out_log(1, "%s exists; the job file is %s (TALLY_OUTPUT_REPLACE=1 replaces it)", path, final);
		snprintf(path, len, "%s", final);
	}
	return 0;
}

int tly_out_merge(const char *dir, int size, char *path, size_t len)
{
	struct merge m = { .regtype = -1, .spaths = { .type = -1 } };
	struct tly_out_stage st;
	hid_t out = -1;
	int rc = -1;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	if (size < 1 || size > TLY_MAX_PIECES || open_pieces(&m, dir, size) < 0)
		goto done;
	for (int k = 0; k < m.n; k++)
		H5Ovisit(m.p[k].f, H5_INDEX_NAME, H5_ITER_INC, collect, &m);
	if (unify_regions(&m) < 0)
		goto done;
	if (unify_paths(&m) < 0) {
		tly_out_log(1, "the job pieces' call paths (sample_paths) cannot be unified: not merged");
		goto done;
	}
	/* written in a private directory of Tally's (output/out_stage.c) */
	if (tly_out_stage_create(&st, path, 0) != 0)
		goto done;
	out = H5Fcreate(st.h5, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
	if (out < 0 || tly_out_stage_check(&st) != 0) {
		if (out >= 0)
			H5Fclose(out);
		out = -1;
		tly_out_stage_discard(&st);
		goto done;
	}
	merge_attrs(&m, out, size);
	rc = 0;
	for (int i = 0; i < m.npaths && !rc; i++)
		rc = merge_dataset(&m, out, m.paths[i]);
done:
	if (out >= 0 && H5Fclose(out) < 0)
		rc = -1;
	if (out >= 0 && rc)
		tly_out_stage_discard(&st);
	else if (out >= 0 && publish(&st, path, len) != 0)
		rc = -1;
	for (int k = 0; k < m.n; k++) {
		H5Fclose(m.p[k].f);
		free(m.p[k].remap);
	}
	if (m.regtype >= 0)
		H5Tclose(m.regtype);
	tly_merge_paths_free(&m.spaths);
	free(m.p);
	free(m.paths);
	free(m.reg);
	return rc;
}
