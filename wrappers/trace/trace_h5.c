/*
 * trace_h5.c - the trace's part of the HDF5 writer library (output/h5_lib.h):
 * the job file's attribute trace_check (schema.def), what the trace's
 * check at its close found (trace_check.c): empty when the trace is
 * whole, else the line rank 0 printed; and trace_id, the id the archive
 * carries (trace_archive.c), by which tally-report pairs the two.  Written
 * only when a trace was closed for this file (never in a partial file).
 */
#include "output/h5_lib.h"

#include <stdio.h>
#include <string.h>

#include "trace/trace_state.h"

/* A fixed-size string attribute of the root group (`size` bytes). */
static int str_attr(hid_t file, const char *name, const char *text, size_t size)
{
	char buf[512];
	hid_t t, sp, a;
	int rc = 0;

	snprintf(buf, sizeof buf, "%s", text);
	t = H5Tcopy(H5T_C_S1);
	sp = H5Screate(H5S_SCALAR);
	H5Tset_size(t, size);
	a = H5Acreate2(file, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0 || H5Awrite(a, t, buf) < 0)
		rc = -1;
	if (a >= 0)
		H5Aclose(a);
	H5Sclose(sp);
	H5Tclose(t);
	return rc;
}

static int trace_write(const struct tly_out_ctx *c, const void *src, hid_t file, hid_t dxpl)
{
	const struct tly_trace_h5_src *h = src;
	const struct tly_trace_state *s = h ? h->state() : NULL;
	int rc;

	(void)c;
	(void)dxpl;
	if (!s || !s->checked)
		return 0;
	rc = str_attr(file, "trace_check", s->check, 512);
	if (str_attr(file, "trace_id", s->id, 64) != 0)   /* the archive's own (its tally.id) */
		rc = -1;
	return rc;
}

const struct tly_h5_part tly_h5_part_trace = {
	.module = "trace",
	.write = trace_write,
};
