/*
 * nvtx_check.c - validation of a payload schema and the placement of its
 * entries (sizes, alignment, explicit or natural offsets).  Anything the
 * header calls invalid, and anything a decoder could not bound, refuses
 * the schema.
 */
#include "nvtx/nvtx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nvtx3/nvToolsExtSemanticsTime.h>

#define PTR_FLAGS (NVTX_PAYLOAD_ENTRY_FLAG_POINTER | NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE \
		   | NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_HERE)
#define ARR(f) ((f) & 0x70u)

struct ck {
	const nvtxPayloadSchemaAttr_t *a;
	struct tly_nv_schema *s;
	uint64_t pack, end, maxalign;
};

static uint64_t time_semantics(const nvtxSemanticsHeader_t *h)
{
	for (int k = 0; h && k < 16; h = h->next, k++)
		if (h->semanticId == NVTX_SEMANTIC_ID_TIME_V1 && h->structSize >= sizeof(nvtxSemanticsTime_t))
			return ((const nvtxSemanticsTime_t *)(const void *)h)->timeDomainId;
	return 0;
}

static int is_int_prim(uint64_t t)
{
	return (t >= NVTX_PAYLOAD_ENTRY_TYPE_CHAR && t <= NVTX_PAYLOAD_ENTRY_TYPE_UINT64)
	       || t == NVTX_PAYLOAD_ENTRY_TYPE_SIZE || t == NVTX_PAYLOAD_ENTRY_TYPE_UNION_SELECTOR;
}

static int is_str(uint64_t t)
{
	return t >= NVTX_PAYLOAD_ENTRY_TYPE_CSTRING && t <= NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32;
}

/* Size and alignment of one element of entry e; -1 when the type is unknown. */
static int elem_type(struct ck *c, struct tly_nv_entry *e, uint64_t *size, uint64_t *align)
{
	const char *nm = c->s->name;

	if (e->type == c->s->id)
		return tly_nv_refuse(nm, "an entry nests the schema in itself%s", "");
	if (tly_nv_prim(e->type, size, align)) {
		e->prim = (int)e->type;
		return 0;
	}
	if ((e->nested = tly_nv_schema_find(e->type))) {
		if (e->nested->depth + 1 > TLY_NV_MAX_DEPTH)
			return tly_nv_refuse(nm, "schemas nest deeper than %s levels", "8");
		if (e->nested->variable && !(e->flags & PTR_FLAGS))
			return tly_nv_refuse(nm, "a variable-size schema is embedded in another%s", "");
		if ((e->nested->type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION) && ARR(e->flags))
			return tly_nv_refuse(nm, "an array of a union with external selector%s", "");
		*size = e->nested->size;
		*align = e->nested->align;
		return 0;
	}
	if ((e->en = tly_nv_enum_find(e->type))) {
		*size = *align = e->en->size;
		return 0;
	}
	return tly_nv_refuse(nm, "unknown entry type%s", "");
}

/* Source bytes of entry i (0: variable); -1 refused. */
static int entry_size(struct ck *c, size_t i, uint64_t esz)
{
	struct tly_nv_entry *e = &c->s->e[i];
	uint64_t arr = ARR(e->flags);
	const char *nm = c->s->name;

	if (arr > NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX)
		return tly_nv_refuse(nm, "unknown array flags%s", "");
	if (arr == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX) {
		if (e->detail >= i || !c->s->e[e->detail].prim || !is_int_prim(c->s->e[e->detail].type)
		    || ARR(c->s->e[e->detail].flags))
			return tly_nv_refuse(nm, "an array length index does not name an earlier integer entry%s", "");
	}
	if (e->nested && e->nested->type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION
	    && (e->detail >= i || !is_int_prim(c->s->e[e->detail].type)))
		return tly_nv_refuse(nm, "a union selector index does not name an earlier integer entry%s", "");
	/* a fixed length is checked behind a pointer too: it sizes the row */
	if (arr == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE || (is_str(e->type) && !arr && e->detail)) {
		if (!e->detail || e->detail > TLY_NV_MAX_ARRAY || e->detail * esz > TLY_NV_MAX_BYTES)
			return tly_nv_refuse(nm, "a fixed-size array has %s length", e->detail ? "an absurd" : "no");
		e->size = e->detail * esz;
	}
	if (e->flags & PTR_FLAGS) {
		e->size = e->align = sizeof(void *);
		return 0;
	}
	if (e->size)
		return 0;
	if (arr || is_str(e->type)) {
		if (arr == NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX)
			return tly_nv_refuse(nm, "an embedded array takes its length from another payload%s", "");
		if (c->a->type != NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC)
			return tly_nv_refuse(nm, "a variable-length embedded entry in a non-dynamic schema%s", "");
		c->s->variable = 1;
		e->size = 0;
		return 0;
	}
	if (!esz)
		return tly_nv_refuse(nm, "an entry has no size%s", "");
	e->size = esz;
	return 0;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* Offset of entry i: explicit, union member, or natural alignment. */
static int place(struct ck *c, size_t i, const nvtxPayloadSchemaEntry_t *src)
{
	struct tly_nv_entry *e = &c->s->e[i];
	uint64_t al = e->align ? e->align : 1, lim = c->s->size;
	int uni = c->a->type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION
		  || c->a->type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR;

	if (c->pack && al > c->pack)
		al = c->pack;
	if (al > c->maxalign)
		c->maxalign = al;
	if (src->offset || i == 0)
		e->off = src->offset;
	else if (c->s->variable)
		e->off = 0;                  /* placed while decoding */
	else if (uni && (int)i != c->s->selector && c->s->selector >= 0)
		e->off = align_up(c->s->e[c->s->selector].size, al);
	else
		e->off = uni ? 0 : align_up(c->end, al);
	if (e->off > TLY_NV_MAX_BYTES || e->size > TLY_NV_MAX_BYTES - e->off)
		return tly_nv_refuse(c->s->name, "an entry offset is out of %s", "bounds");
	if (lim && e->off + e->size > lim)
		return tly_nv_refuse(c->s->name, "an entry lies outside the payload's static %s", "size");
	if (e->off + e->size > c->end)
		c->end = e->off + e->size;
	return 0;
}

static int one_entry(struct ck *c, size_t i, const nvtxPayloadSchemaEntry_t *src)
{
	struct tly_nv_entry *e = &c->s->e[i];
	uint64_t esz = 0, eal = 1;
	char alt[80];

	e->flags = src->flags;
	e->type = src->type;
	e->detail = src->arrayOrUnionDetail;
	if (src->name && *src->name)
		snprintf(alt, sizeof alt, "%.64s", src->name);
	else
		snprintf(alt, sizeof alt, "field_%zu", i);
	for (size_t j = 0; j < i; j++)
		if (!strcmp(c->s->e[j].name, alt)) {
			snprintf(alt, sizeof alt, "%.60s_%zu", src->name ? src->name : "field", i);
			break;
		}
	e->name = strdup(alt);
	if (!e->name || elem_type(c, e, &esz, &eal) < 0)
		return -1;
	if (e->type == NVTX_PAYLOAD_ENTRY_TYPE_UNION_SELECTOR) {
		if (c->a->type != NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR || c->s->selector >= 0)
			return tly_nv_refuse(c->s->name, "a union selector outside a union with internal selector%s", "");
		c->s->selector = (int)i;
		if (e->detail == 1 || e->detail == 2 || e->detail == 4 || e->detail == 8)
			esz = eal = e->detail;     /* selector width in bytes (default 4) */
		e->detail = 0;
	}
	e->align = eal;
	e->esz = esz;
	e->time_domain = e->flags & NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP ? time_semantics(src->semantics) : 0;
	if (entry_size(c, i, esz) < 0)
		return -1;
	if ((e->flags & 0xC00u) == NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE && c->s->msg < 0
	    && (is_str(e->type) || e->type == NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE))
		c->s->msg = (int)i;
	return place(c, i, src);
}

static int attr_ok(const nvtxPayloadSchemaAttr_t *a, const char *nm)
{
	uint64_t need = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES
			| NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES;

	if (!a)
		return tly_nv_refuse(nm, "no attributes%s", "");
	if ((a->fieldMask & need) != need || !a->entries)
		return tly_nv_refuse(nm, "type, entries or number of entries %s", "missing");
	if (a->type < NVTX_PAYLOAD_SCHEMA_TYPE_STATIC || a->type > NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR)
		return tly_nv_refuse(nm, "unknown schema type%s", "");
	if (!a->numEntries || a->numEntries > TLY_NV_MAX_ENTRIES)
		return tly_nv_refuse(nm, "%s entries", a->numEntries ? "too many" : "no");
	if ((a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE) && a->payloadStaticSize > TLY_NV_MAX_BYTES)
		return tly_nv_refuse(nm, "absurd static payload %s", "size");
	if ((a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT) && a->packAlign
	    && (a->packAlign > 64 || (a->packAlign & (a->packAlign - 1))))
		return tly_nv_refuse(nm, "pack alignment is not a power of two up to %s", "64");
	return 0;
}

int tly_nv_check(const nvtxPayloadSchemaAttr_t *a, uint64_t id, struct tly_nv_schema *s)
{
	struct ck c = { .a = a, .s = s, .maxalign = 1 };
	const char *nm = a && (a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME) ? a->name : NULL;

	s->id = id;
	s->msg = s->selector = -1;
	s->depth = 1;
	if (attr_ok(a, nm) < 0)
		return -1;
	s->type = a->type;
	s->flags = a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_FLAGS ? a->flags : 0;
	c.pack = a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT ? a->packAlign : 0;
	if (a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE && a->type != NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC)
		s->size = a->payloadStaticSize;
	s->e = calloc(a->numEntries, sizeof *s->e);
	if (!s->e)
		return -1;
	s->n = a->numEntries;
	for (size_t i = 0; i < s->n; i++) {
		if (one_entry(&c, i, &a->entries[i]) < 0)
			return -1;
		if (s->e[i].nested && s->e[i].nested->depth + 1 > s->depth)
			s->depth = s->e[i].nested->depth + 1;
	}
	if (a->type == NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR && s->selector < 0)
		return tly_nv_refuse(nm, "a union with internal selector has no selector %s", "entry");
	s->align = c.maxalign;
	if (s->variable)
		s->size = 0;
	else if (!s->size)
		s->size = align_up(c.end, c.maxalign);
	return 0;
}
