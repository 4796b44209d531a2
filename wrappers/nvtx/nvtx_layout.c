/*
 * nvtx_layout.c - the row type of a payload table: the event header
 * (rank, thread, region, times...) followed by one column per schema
 * entry.  Integers keep their width and sign, strings of every encoding
 * become variable-length UTF-8 strings, enums stay enums, nested schemas
 * become nested compounds, fixed arrays arrays and variable arrays
 * variable-length sequences.  Types HDF5 has no native form for (16-bit
 * and 128-bit floats, 128-bit integers) are kept as raw bytes.
 */
#include "nvtx/nvtx.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const hdr_names[] = { "rank", "thread", "region", "event", "time_ns", "end_ns",
					 "range_id", "domain", "scope" };
static const uint32_t hdr_off[] = {
	offsetof(struct tly_nv_hdr, rank), offsetof(struct tly_nv_hdr, thread),
	offsetof(struct tly_nv_hdr, region), offsetof(struct tly_nv_hdr, event),
	offsetof(struct tly_nv_hdr, time_ns), offsetof(struct tly_nv_hdr, end_ns),
	offsetof(struct tly_nv_hdr, range_id), offsetof(struct tly_nv_hdr, domain),
	offsetof(struct tly_nv_hdr, scope) };
static const uint8_t hdr_kind[] = { 0, 0, 0, 0, 0, 0, 1, 0, 0 };
static const uint8_t hdr_size[] = { 4, 4, 4, 4, 8, 8, 8, 4, 4 };

static struct tly_nv_ct *ct_new(int kind, uint32_t size)
{
	struct tly_nv_ct *t = calloc(1, sizeof *t);

	if (t) {
		t->kind = kind;
		t->size = size;
	}
	return t;
}

void tly_nv_ct_free(struct tly_nv_ct *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; t->kind == TLY_NV_COMP && t->f && i < t->n; i++) {
		free(t->f[i].name);
		tly_nv_ct_free(t->f[i].t);
	}
	free(t->f);
	tly_nv_ct_free(t->elem);
	free(t);
}

static uint32_t ct_align(const struct tly_nv_ct *t)
{
	uint32_t a = 1;

	switch (t->kind) {
	case TLY_NV_STR: case TLY_NV_VLEN: return sizeof(void *);
	case TLY_NV_OPAQUE: return 1;
	case TLY_NV_ARRAY: return ct_align(t->elem);
	case TLY_NV_COMP:
		for (uint32_t i = 0; i < t->n; i++)
			if (ct_align(t->f[i].t) > a)
				a = ct_align(t->f[i].t);
		return a;
	default: return t->size;
	}
}

static struct tly_nv_ct *prim_ct(uint64_t ty, uint64_t size)
{
	switch (ty) {
	case NVTX_PAYLOAD_ENTRY_TYPE_CHAR: case NVTX_PAYLOAD_ENTRY_TYPE_SHORT: case NVTX_PAYLOAD_ENTRY_TYPE_INT:
	case NVTX_PAYLOAD_ENTRY_TYPE_LONG: case NVTX_PAYLOAD_ENTRY_TYPE_LONGLONG: case NVTX_PAYLOAD_ENTRY_TYPE_INT8:
	case NVTX_PAYLOAD_ENTRY_TYPE_INT16: case NVTX_PAYLOAD_ENTRY_TYPE_INT32: case NVTX_PAYLOAD_ENTRY_TYPE_INT64:
	case NVTX_PAYLOAD_ENTRY_TYPE_WCHAR:
		return ct_new(TLY_NV_INT, (uint32_t)size);
	case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT: case NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE:
	case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT32: case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64:
		return ct_new(TLY_NV_FLOAT, (uint32_t)size);
	case NVTX_PAYLOAD_ENTRY_TYPE_LONGDOUBLE:
		return ct_new(TLY_NV_FLOAT, 8);
	case NVTX_PAYLOAD_ENTRY_TYPE_INT128: case NVTX_PAYLOAD_ENTRY_TYPE_UINT128:
	case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT16: case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT128:
	case NVTX_PAYLOAD_ENTRY_TYPE_BF16: case NVTX_PAYLOAD_ENTRY_TYPE_TF32:
		return ct_new(TLY_NV_OPAQUE, (uint32_t)size);
	default:
		return size == 1 || size == 2 || size == 4 || size == 8 ? ct_new(TLY_NV_UINT, (uint32_t)size)
									: ct_new(TLY_NV_OPAQUE, (uint32_t)size);
	}
}

static struct tly_nv_ct *data_ct(const struct tly_nv_schema *s, int with_hdr);

static struct tly_nv_ct *elem_ct(const struct tly_nv_entry *e)
{
	uint64_t size, align;

	if ((e->type >= NVTX_PAYLOAD_ENTRY_TYPE_CSTRING && e->type <= NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32)
	    || e->type == NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE)
		return ct_new(TLY_NV_STR, sizeof(char *));
	if (e->nested)
		return data_ct(e->nested, 0);
	if (e->en) {
		struct tly_nv_ct *t = ct_new(TLY_NV_ENUM, (uint32_t)e->en->size);

		if (t)
			t->en = e->en;
		return t;
	}
	if (e->type == NVTX_PAYLOAD_ENTRY_TYPE_UNION_SELECTOR)
		return ct_new(TLY_NV_UINT, (uint32_t)e->align);
	if (!tly_nv_prim(e->type, &size, &align))
		return NULL;
	return prim_ct(e->type, size);
}

/* Column type of entry e: its element, or an array / sequence of it. */
static struct tly_nv_ct *entry_ct(const struct tly_nv_entry *e)
{
	struct tly_nv_ct *el = elem_ct(e), *t;
	uint64_t arr = e->flags & 0x70u;

	if (!el || el->kind == TLY_NV_STR || !arr)
		return el;
	if (arr == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE) {
		/* the row must stay addressable in 32 bits (checks bound the source) */
		t = (uint64_t)el->size * e->detail <= TLY_NV_MAX_ROW
		    ? ct_new(TLY_NV_ARRAY, el->size * (uint32_t)e->detail) : NULL;
		if (t)
			t->n = (uint32_t)e->detail;
	} else {
		t = ct_new(TLY_NV_VLEN, sizeof(struct tly_nv_vl));
	}
	if (!t) {
		tly_nv_ct_free(el);
		return NULL;
	}
	t->elem = el;
	return t;
}

static int add_field(struct tly_nv_ct *c, const char *name, struct tly_nv_ct *t, uint32_t *end)
{
	uint32_t a;

	if (!t)
		return -1;
	a = ct_align(t);
	if ((uint64_t)*end + a + t->size > TLY_NV_MAX_ROW) {
		tly_nv_ct_free(t);
		return -1;
	}
	c->f[c->n].off = (*end + a - 1) / a * a;
	c->f[c->n].t = t;
	c->f[c->n].name = strdup(name);
	*end = c->f[c->n].off + t->size;
	return c->f[c->n++].name ? 0 : -1;
}

static int clashes(const char *name)
{
	for (size_t k = 0; k < sizeof hdr_names / sizeof *hdr_names; k++)
		if (!strcmp(name, hdr_names[k]) || !strcmp(name, "selected"))
			return 1;
	return 0;
}

static int add_header(struct tly_nv_ct *c, uint32_t *end)
{
	for (size_t k = 0; k < sizeof hdr_names / sizeof *hdr_names; k++) {
		struct tly_nv_ct *t = ct_new(hdr_kind[k] ? TLY_NV_UINT : TLY_NV_INT, hdr_size[k]);

		if (add_field(c, hdr_names[k], t, end) < 0)
			return -1;
		c->f[k].off = hdr_off[k];
	}
	*end = sizeof(struct tly_nv_hdr);
	return 0;
}

static struct tly_nv_ct *data_ct(const struct tly_nv_schema *s, int with_hdr)
{
	struct tly_nv_ct *c = ct_new(TLY_NV_COMP, 0);
	int uni = s->type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION
		  || s->type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR;
	uint32_t end = 0;
	char nm[96];

	if (!c || !(c->f = calloc(s->n + 10, sizeof *c->f)))
		goto fail;
	if (with_hdr && add_header(c, &end) < 0)
		goto fail;
	if (uni && add_field(c, "selected", ct_new(TLY_NV_INT, 4), &end) < 0)
		goto fail;
	for (size_t i = 0; i < s->n; i++) {
		snprintf(nm, sizeof nm, "%s%s", clashes(s->e[i].name) ? "payload_" : "", s->e[i].name);
		if (add_field(c, nm, entry_ct(&s->e[i]), &end) < 0)
			goto fail;
	}
	c->size = (end + ct_align(c) - 1) / ct_align(c) * ct_align(c);
	return c;
fail:
	tly_nv_ct_free(c);
	return NULL;
}

struct tly_nv_ct *tly_nv_layout(const struct tly_nv_schema *s, uint32_t *data_off)
{
	struct tly_nv_ct *c = data_ct(s, 1);

	if (c) {
		int uni = s->type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION
			  || s->type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR;
		*data_off = 9 + uni;   /* index of the first entry's field */
	}
	return c;
}
