/*
 * nvtx_decode.c - payload bytes to a table row, following the schema.
 * Every read inside the payload is checked against its declared size;
 * pointers (absolute or offsets) are followed only for trusted callers
 * (the application), offsets only inside the payload.  Strings of every
 * encoding are copied as UTF-8 into the caller's arena.
 */
#include "nvtx/nvtx.h"

#include <stdint.h>
#include <string.h>

#define PTR_FLAGS (NVTX_PAYLOAD_ENTRY_FLAG_POINTER | NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE \
		   | NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE)
#define ARR(f) ((f) & 0x70u)

/* Bytes [p, p + avail) may be read. */
struct span { const uint8_t *p; size_t avail; };

struct dctx {
	struct tly_nv_dec *d;
	int top;
};

static int dec_comp(struct dctx *c, const struct tly_nv_schema *s, struct span in, const struct tly_nv_ct *ct,
		    uint8_t *dst, int64_t sel, int depth, size_t *used);

static int64_t read_int(const uint8_t *p, size_t n, int sign)
{
	uint8_t b[8] = { 0 };

	memcpy(b, p, n > 8 ? 8 : n);
	switch (n) {
	case 1: return sign ? (int64_t)(int8_t)b[0] : (int64_t)b[0];
	case 2: { int16_t v; memcpy(&v, b, 2); return sign ? (int64_t)v : (int64_t)(uint16_t)v; }
	case 4: { int32_t v; memcpy(&v, b, 4); return sign ? (int64_t)v : (int64_t)(uint32_t)v; }
	default: { int64_t v; memcpy(&v, b, 8); return v; }
	}
}

static size_t unit_of(uint64_t ty)
{
	switch (ty) {
	case NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF16: return 2;
	case NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32: return 4;
	default: return 1;
	}
}

static char *copy_text(struct dctx *c, const uint8_t *p, size_t units, size_t unit)
{
	size_t n = 0, cap = units * (unit == 1 ? 1 : 4) + 1;
	char *o = tly_nv_alloc(c->d->arena, cap);

	if (!o)
		return (char *)"";
	if (unit == 1) {
		while (n < units && p[n])
			n++;
		memcpy(o, p, n);
		o[n] = '\0';
	} else {
		tly_nv_utf8(p, unit, units, o, cap);
	}
	return o;
}

/* Units of a string starting at p with `avail` bytes, stopping at NUL. */
static size_t text_units(const uint8_t *p, size_t avail, size_t unit, int *terminated)
{
	static const uint8_t zero[4];
	size_t k = 0;

	*terminated = 0;
	for (; (k + 1) * unit <= avail; k++)
		if (!memcmp(p + k * unit, zero, unit)) {
			*terminated = 1;
			break;
		}
	return k;
}

/* String entry: stores a char * at dst; *used: bytes taken inline. */
static int dec_string(struct dctx *c, const struct tly_nv_entry *e, struct span v, const int64_t *vals,
		      uint8_t *dst, size_t *used)
{
	size_t unit = unit_of(e->type), units, cap = v.avail;
	uint64_t arr = ARR(e->flags);
	int term = 0;
	char *s;

	if (!v.p) {
		s = (char *)"";
		memcpy(dst, &s, sizeof s);
		return 0;
	}
	if (arr == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX) {
		units = (size_t)vals[e->detail];
		if (units > cap / unit)
			return -1;
	} else if (e->detail && arr != NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED) {
		units = (size_t)e->detail;
		if (units > cap / unit)
			return -1;
	} else {
		units = text_units(v.p, cap, unit, &term);
		if (!term && e->size == 0 && !(e->flags & PTR_FLAGS))
			return -1;       /* an embedded zero-terminated string must end */
	}
	s = copy_text(c, v.p, units, unit);
	memcpy(dst, &s, sizeof s);
	*used = (units + (size_t)term) * unit;
	return 0;
}

/* One element (scalar, enum or nested schema) of entry e. */
static int dec_elem(struct dctx *c, const struct tly_nv_entry *e, struct span v, const struct tly_nv_ct *ct,
		    uint8_t *dst, int64_t sel, int depth)
{
	size_t used;

	if (e->nested) {
		struct span in = { v.p, v.avail < e->esz ? v.avail : e->esz };

		return dec_comp(c, e->nested, in, ct, dst, sel, depth + 1, &used);
	}
	if (v.avail < e->esz)
		return -1;
	if (e->type == NVTX_PAYLOAD_ENTRY_TYPE_LONGDOUBLE && e->esz == sizeof(long double)) {
		long double ld;
		double dv;

		memcpy(&ld, v.p, sizeof ld);
		dv = (double)ld;
		memcpy(dst, &dv, sizeof dv);
		return 0;
	}
	memcpy(dst, v.p, ct->size < e->esz ? ct->size : e->esz);
	return 0;
}

static int64_t elem_count(const struct tly_nv_entry *e, struct span v, const int64_t *vals, int *term)
{
	uint64_t arr = ARR(e->flags);
	size_t k = 0;

	*term = 0;
	if (arr == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX)
		return vals[e->detail];
	if (arr != NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED || !e->esz)
		return 0;
	for (; (k + 1) * e->esz <= v.avail && k < TLY_NV_MAX_ARRAY; k++) {
		size_t b = 0;

		while (b < e->esz && !v.p[k * e->esz + b])
			b++;
		if (b == e->esz) {
			*term = 1;
			break;
		}
	}
	return *term ? (int64_t)k : -1;
}

/* Fixed or variable array of entry e into dst (ARRAY or VLEN column). */
static int dec_array(struct dctx *c, const struct tly_nv_entry *e, struct span v, const int64_t *vals,
		     const struct tly_nv_ct *ct, uint8_t *dst, int depth, size_t *used)
{
	int term = 0;
	int64_t n = ARR(e->flags) == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE ? (int64_t)e->detail
										 : elem_count(e, v, vals, &term);
	const struct tly_nv_ct *el = ct->elem;
	struct tly_nv_vl vl = { 0, NULL };
	uint8_t *out = dst;

	if (!v.p)
		n = 0;
	if (n < 0 || n > TLY_NV_MAX_ARRAY || (uint64_t)n * e->esz > v.avail)
		return -1;
	if (ct->kind == TLY_NV_VLEN && n) {
		vl.len = (size_t)n;
		vl.p = out = tly_nv_alloc(c->d->arena, (size_t)n * el->size);
		if (!out)
			return -1;
		memset(out, 0, (size_t)n * el->size);
	}
	for (int64_t k = 0; k < n; k++) {
		struct span ev = { v.p + k * e->esz, v.avail - (size_t)k * e->esz };

		if (dec_elem(c, e, ev, el, out + k * el->size, -1, depth) < 0)
			return -1;
	}
	if (ct->kind == TLY_NV_VLEN)
		memcpy(dst, &vl, sizeof vl);
	*used = (size_t)(n + term) * e->esz;
	return 0;
}

/* Where the value of an entry at `off` is: inline, or behind a pointer. */
static int locate(struct dctx *c, const struct tly_nv_entry *e, struct span in, size_t off, struct span *v)
{
	uint64_t ptr;

	if (off > in.avail)
		return -1;
	*v = (struct span){ in.p + off, in.avail - off };
	if (!(e->flags & PTR_FLAGS))
		return 0;
	if (v->avail < sizeof(void *))
		return -1;
	ptr = (uint64_t)read_int(v->p, sizeof(void *), 0);
	*v = (struct span){ NULL, 0 };
	if (e->flags & NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE) {
		if (ptr < in.avail)
			*v = (struct span){ in.p + ptr, in.avail - ptr };
	} else if (e->flags & NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE) {
		size_t here = off + sizeof(void *);

		if (ptr < in.avail - here)
			*v = (struct span){ in.p + here + ptr, in.avail - here - ptr };
	} else if (c->d->follow_pointers && ptr) {
		*v = (struct span){ (const uint8_t *)(uintptr_t)ptr, TLY_NV_MAX_BYTES };
	}
	return 0;
}

static int is_signed(uint64_t t)
{
	return t == NVTX_PAYLOAD_ENTRY_TYPE_CHAR || t == NVTX_PAYLOAD_ENTRY_TYPE_SHORT || t == NVTX_PAYLOAD_ENTRY_TYPE_INT
	       || t == NVTX_PAYLOAD_ENTRY_TYPE_LONG || t == NVTX_PAYLOAD_ENTRY_TYPE_LONGLONG
	       || t == NVTX_PAYLOAD_ENTRY_TYPE_INT8 || t == NVTX_PAYLOAD_ENTRY_TYPE_INT16
	       || t == NVTX_PAYLOAD_ENTRY_TYPE_INT32 || t == NVTX_PAYLOAD_ENTRY_TYPE_INT64;
}

/* Entry i of s at `off` into field column (ct, dst); *used: inline bytes. */
static int dec_entry(struct dctx *c, const struct tly_nv_schema *s, size_t i, struct span in, size_t off,
		     const struct tly_nv_ct *ct, uint8_t *dst, int64_t *vals, int depth, size_t *used)
{
	const struct tly_nv_entry *e = &s->e[i];
	int ptr = (e->flags & PTR_FLAGS) != 0;
	struct span v;
	size_t u = 0;
	int rc;

	if (locate(c, e, in, off, &v) < 0)
		return -1;
	if (ct->kind == TLY_NV_STR && e->type != NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE) {
		rc = dec_string(c, e, v, vals, dst, &u);
	} else if (ct->kind == TLY_NV_STR) {
		const char *str = v.p && v.avail >= sizeof(void *)
				  ? tly_nv_string((nvtxStringHandle_t)(uintptr_t)read_int(v.p, sizeof(void *), 0)) : NULL;

		str = str ? str : "";
		memcpy(dst, &str, sizeof str);
		rc = v.p && v.avail < sizeof(void *) ? -1 : 0;
		u = sizeof(void *);
	} else if (ct->kind == TLY_NV_ARRAY || ct->kind == TLY_NV_VLEN) {
		rc = dec_array(c, e, v, vals, ct, dst, depth, &u);
	} else {
		int64_t sel = e->nested && e->nested->type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION ? vals[e->detail] : -1;

		rc = v.p ? dec_elem(c, e, v, ct, dst, sel, depth) : 0;
		u = e->esz;
		if (!rc && v.p && e->prim && !ARR(e->flags) && e->esz <= 8)
			vals[i] = read_int(v.p, e->esz, is_signed(e->type));
	}
	*used = ptr ? sizeof(void *) : e->size ? e->size : u;
	return rc;
}

static void note_time(struct dctx *c, const struct tly_nv_entry *e, const int64_t *vals, size_t i)
{
	int end = ((e->flags >> 12) & 7u) == 2;

	if (!(e->flags & NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP) || (e->flags & 0xC00u) != NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP
	    || !e->prim || ARR(e->flags))
		return;
	if (c->d->nts & (1 << end))
		return;
	c->d->nts |= 1 << end;
	c->d->ts[end] = vals[i];
	c->d->ts_domain[end] = e->time_domain;
}

static int dec_union(struct dctx *c, const struct tly_nv_schema *s, struct span in, const struct tly_nv_ct *ct,
		     uint8_t *dst, int64_t sel, int64_t *vals, int depth, uint32_t first)
{
	size_t u;
	int32_t chosen = -1;

	if (s->selector >= 0) {
		if (dec_entry(c, s, (size_t)s->selector, in, s->e[s->selector].off, ct->f[first + s->selector].t,
			      dst + ct->f[first + s->selector].off, vals, depth, &u) < 0)
			return -1;
		sel = vals[s->selector];
	}
	if (sel >= 0 && (uint64_t)sel < s->n && sel != s->selector) {
		chosen = (int32_t)sel;
		if (dec_entry(c, s, (size_t)sel, in, s->e[sel].off, ct->f[first + sel].t, dst + ct->f[first + sel].off,
			      vals, depth, &u) < 0)
			return -1;
	}
	memcpy(dst + ct->f[first - 1].off, &chosen, sizeof chosen);
	return 0;
}

static int dec_comp(struct dctx *c, const struct tly_nv_schema *s, struct span in, const struct tly_nv_ct *ct,
		    uint8_t *dst, int64_t sel, int depth, size_t *used)
{
	int64_t small[64], *vals = small;
	uint32_t first = (depth ? 0 : 9) + (s->selector >= 0 || s->type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION);
	size_t cursor = 0;

	if (depth > TLY_NV_MAX_DEPTH || (!s->variable && in.avail < s->size))
		return -1;
	if (s->n > 64 && !(vals = tly_nv_alloc(c->d->arena, s->n * sizeof *vals)))
		return -1;
	memset(vals, 0, (s->n > 64 ? s->n : 64) * sizeof *vals);
	*used = s->size;
	if (first > (depth ? 0u : 9u))
		return dec_union(c, s, in, ct, dst, sel, vals, depth, first);
	for (size_t i = 0; i < s->n; i++) {
		const struct tly_nv_entry *e = &s->e[i];
		size_t off = s->variable ? (cursor + e->align - 1) / e->align * e->align : e->off, u;

		if (dec_entry(c, s, i, in, off, ct->f[first + i].t, dst + ct->f[first + i].off, vals, depth, &u) < 0)
			return -1;
		cursor = off + u;
		if (!depth)
			note_time(c, e, vals, i);
		if (!depth && (int)i == s->msg)
			memcpy(&c->d->msg, dst + ct->f[first + i].off, sizeof c->d->msg);
	}
	*used = s->variable ? cursor : s->size;
	return 0;
}

int tly_nv_decode(const struct tly_nv_schema *s, const void *p, size_t size, void *row, struct tly_nv_dec *d)
{
	struct dctx c = { .d = d, .top = 1 };
	struct span in = { p, size };
	size_t used;

	d->msg = NULL;
	d->nts = 0;
	if (size == SIZE_MAX && !s->variable)
		size = s->size;       /* "the tool figures the size out" */
	if (!p || size > TLY_NV_MAX_BYTES)
		return -1;
	return dec_comp(&c, s, in, s->row, row, -1, 0, &used);
}

uint64_t tly_nv_stride(const struct tly_nv_schema *s)
{
	return s->variable ? 0 : s->size;
}
