/*
 * test_nvtx_schema.c - malformed payload schemas are refused
 * (nvtxPayloadSchemaRegister's handler returns 0) with the reason named,
 * and each reason is logged once; the well-formed neighbours of each bad
 * row are accepted.  Table-driven: every row carries its __LINE__.
 */
#include "nvtx/nvtx.h"

#include <stdio.h>
#include <string.h>

#include "nv_stub_rt.h"
#include "tharness.h"

#define F_ALL (NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES \
	       | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES)
#define F_SIZE NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE
#define F_ID NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID
#define F_ALIGN NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT
#define ST NVTX_PAYLOAD_SCHEMA_TYPE_STATIC
#define DY NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC
#define UN NVTX_PAYLOAD_SCHEMA_TYPE_UNION
#define US NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR
#define I32 NVTX_PAYLOAD_ENTRY_TYPE_INT32
#define I64 NVTX_PAYLOAD_ENTRY_TYPE_INT64
#define F64 NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE
#define STR NVTX_PAYLOAD_ENTRY_TYPE_CSTRING
#define SEL NVTX_PAYLOAD_ENTRY_TYPE_UNION_SELECTOR
#define FIX NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE
#define ZT NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED
#define LEN NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX
#define PLEN NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_PAYLOAD_INDEX
#define PTR NVTX_PAYLOAD_ENTRY_FLAG_POINTER
#define SID(k) (NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + (k))

/* Entry types standing for ids known only at run time. */
#define T_POINT 0xF0000001u     /* static {int32 x, y} */
#define T_DYN 0xF0000002u       /* dynamic schema */
#define T_ENUM 0xF0000003u      /* 4-byte enum */
#define T_SELF 0xF0000004u      /* the row's own static id */

struct ent { uint64_t flags, type, detail, off; };
struct row {
	int line;
	const char *why;          /* part of the refusal reason; NULL: accepted */
	uint64_t mask, type, size, id;
	int n;                    /* numEntries given (may differ from the entries) */
	struct ent e[4];
	int pack;
};

static const struct row rows[] = {
	/* attributes */
	{ __LINE__, "missing", NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES, ST, 0, 0, 1, { { 0, I32, 0, 0 } }, 0 },
	{ __LINE__, "missing", NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES, ST, 0, 0, 1, { { 0, I32, 0, 0 } }, 0 },
	{ __LINE__, "no entries", F_ALL, ST, 0, 0, 0, { { 0, I32, 0, 0 } }, 0 },
	{ __LINE__, "too many entries", F_ALL, ST, 0, 0, 1025, { { 0, I32, 0, 0 } }, 0 },
	{ __LINE__, "unknown schema type", F_ALL, 9, 0, 0, 1, { { 0, I32, 0, 0 } }, 0 },
	{ __LINE__, "unknown schema type", F_ALL, NVTX_PAYLOAD_SCHEMA_TYPE_INVALID, 0, 0, 1, { { 0, I32, 0, 0 } }, 0 },
	{ __LINE__, "absurd static payload", F_ALL | F_SIZE, ST, 1ull << 40, 0, 1, { { 0, I32, 0, 0 } }, 0 },
	{ __LINE__, "pack alignment", F_ALL | F_ALIGN, ST, 0, 0, 1, { { 0, I32, 0, 0 } }, 3 },
	{ __LINE__, NULL, F_ALL | F_ALIGN, ST, 0, 0, 2, { { 0, I32, 0, 0 }, { 0, I64, 0, 0 } }, 4 },
	/* unknown entry types */
	{ __LINE__, "unknown entry type", F_ALL, ST, 0, 0, 1, { { 0, 999, 0, 0 } }, 0 },
	{ __LINE__, "unknown entry type", F_ALL, ST, 0, 0, 2, { { 0, I32, 0, 0 }, { 0, NVTX_PAYLOAD_ENTRY_TYPE_INVALID, 0, 4 } }, 0 },
	{ __LINE__, "unknown entry type", F_ALL, ST, 0, 0, 1, { { 0, SID(4000), 0, 0 } }, 0 },
	{ __LINE__, NULL, F_ALL, ST, 0, 0, 2, { { 0, T_ENUM, 0, 0 }, { 0, T_POINT, 0, 8 } }, 0 },
	/* offsets and sizes out of bounds */
	{ __LINE__, "outside the payload's static size", F_ALL | F_SIZE, ST, 8, 0, 1, { { 0, I64, 0, 4 } }, 0 },
	{ __LINE__, "outside the payload's static size", F_ALL | F_SIZE, ST, 8, 0, 2, { { 0, I32, 0, 0 }, { 0, I32, 0, 6 } }, 0 },
	{ __LINE__, "outside the payload's static size", F_ALL | F_SIZE, ST, 12, 0, 1, { { 0, T_POINT, 0, 8 } }, 0 },
	{ __LINE__, "offset is out of bounds", F_ALL, ST, 0, 0, 1, { { 0, I32, 0, 1ull << 40 } }, 0 },
	{ __LINE__, "offset is out of bounds", F_ALL, ST, 0, 0, 2, { { 0, I32, 0, 0 }, { 0, I32, 0, ~0ull - 2 } }, 0 },
	{ __LINE__, NULL, F_ALL | F_SIZE, ST, 16, 0, 2, { { 0, I32, 0, 0 }, { 0, I64, 0, 8 } }, 0 },
	/* absurd array lengths */
	{ __LINE__, "fixed-size array has no length", F_ALL, ST, 0, 0, 1, { { FIX, I32, 0, 0 } }, 0 },
	{ __LINE__, "fixed-size array has an absurd length", F_ALL, ST, 0, 0, 1, { { FIX, I32, (1u << 20) + 1, 0 } }, 0 },
	{ __LINE__, "fixed-size array has an absurd length", F_ALL, ST, 0, 0, 1, { { FIX, F64, ~0ull, 0 } }, 0 },
	{ __LINE__, "fixed-size array has an absurd length", F_ALL, ST, 0, 0, 1, { { 0, STR, 1ull << 32, 0 } }, 0 },
	{ __LINE__, "fixed-size array has an absurd length", F_ALL, ST, 0, 0, 1, { { PTR | FIX, I64, ~0ull, 0 } }, 0 },
	{ __LINE__, "fixed-size array has no length", F_ALL, ST, 0, 0, 1, { { PTR | FIX, I64, 0, 0 } }, 0 },
	{ __LINE__, NULL, F_ALL, ST, 0, 0, 1, { { FIX, I32, 1u << 20, 0 } }, 0 },
	{ __LINE__, NULL, F_ALL, ST, 0, 0, 1, { { PTR | FIX, I32, 4, 0 } }, 0 },
	/* array lengths from other entries */
	{ __LINE__, "length index does not name an earlier integer", F_ALL, DY, 0, 0, 2, { { LEN, F64, 1, 0 }, { 0, I32, 0, 0 } }, 0 },
	{ __LINE__, "length index does not name an earlier integer", F_ALL, DY, 0, 0, 2, { { 0, F64, 0, 0 }, { LEN, F64, 0, 0 } }, 0 },
	{ __LINE__, "length index does not name an earlier integer", F_ALL, DY, 0, 0, 2, { { 0, I32, 0, 0 }, { LEN, F64, 7, 0 } }, 0 },
	{ __LINE__, "takes its length from another payload", F_ALL, DY, 0, 0, 2, { { 0, I32, 0, 0 }, { PLEN, F64, 0, 0 } }, 0 },
	{ __LINE__, "unknown array flags", F_ALL, ST, 0, 0, 1, { { 5u << 4, I32, 2, 0 } }, 0 },
	{ __LINE__, NULL, F_ALL, DY, 0, 0, 3, { { 0, I32, 0, 0 }, { LEN, F64, 0, 0 }, { ZT, STR, 0, 0 } }, 0 },
	/* variable-size entries where the layout is static */
	{ __LINE__, "variable-length embedded entry in a non-dynamic", F_ALL, ST, 0, 0, 1, { { ZT, I32, 0, 0 } }, 0 },
	{ __LINE__, "variable-length embedded entry in a non-dynamic", F_ALL, ST, 0, 0, 1, { { 0, STR, 0, 0 } }, 0 },
	{ __LINE__, "variable-length embedded entry in a non-dynamic", F_ALL, ST, 0, 0, 2, { { 0, I32, 0, 0 }, { LEN, I32, 0, 8 } }, 0 },
	{ __LINE__, "variable-size schema is embedded", F_ALL, DY, 0, 0, 1, { { 0, T_DYN, 0, 0 } }, 0 },
	{ __LINE__, NULL, F_ALL, ST, 0, 0, 2, { { PTR, T_DYN, 0, 0 }, { PTR, STR, 0, 8 } }, 0 },
	/* unions and selectors */
	{ __LINE__, "selector outside a union with internal selector", F_ALL, ST, 0, 0, 1, { { 0, SEL, 0, 0 } }, 0 },
	{ __LINE__, "has no selector", F_ALL, US, 0, 0, 2, { { 0, I32, 0, 0 }, { 0, F64, 0, 0 } }, 0 },
	{ __LINE__, "selector outside", F_ALL, US, 0, 0, 3, { { 0, SEL, 0, 0 }, { 0, SEL, 0, 0 }, { 0, F64, 0, 0 } }, 0 },
	{ __LINE__, NULL, F_ALL, US, 0, 0, 3, { { 0, SEL, 0, 0 }, { 0, I32, 0, 0 }, { 0, F64, 0, 0 } }, 0 },
	/* cycles and depth through nested schemas */
	{ __LINE__, "nests the schema in itself", F_ALL | F_ID, ST, 0, SID(77), 1, { { 0, T_SELF, 0, 0 } }, 0 },
	{ __LINE__, "unknown entry type", F_ALL | F_ID, ST, 0, SID(78), 1, { { 0, SID(79), 0, 0 } }, 0 },
	{ __LINE__, "unknown entry type", F_ALL | F_ID, ST, 0, SID(79), 1, { { 0, SID(78), 0, 0 } }, 0 },
	/* static ids */
	{ __LINE__, "out of range or taken", F_ALL | F_ID, ST, 0, 5, 1, { { 0, I32, 0, 0 } }, 0 },
	{ __LINE__, "out of range or taken", F_ALL | F_ID, ST, 0, NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START + 3, 1, { { 0, I32, 0, 0 } }, 0 },
	{ __LINE__, NULL, F_ALL | F_ID, ST, 0, SID(90), 1, { { 0, I32, 0, 0 } }, 0 },
	{ __LINE__, "out of range or taken", F_ALL | F_ID, ST, 0, SID(90), 1, { { 0, I32, 0, 0 } }, 0 },
};

static uint64_t point_id, dyn_id, enum_id;

static uint64_t subst(uint64_t t, const struct row *r)
{
	switch (t) {
	case T_POINT: return point_id;
	case T_DYN: return dyn_id;
	case T_ENUM: return enum_id;
	case T_SELF: return r->id;
	default: return t;
	}
}

static uint64_t submit(const struct row *r)
{
	static nvtxPayloadSchemaEntry_t e[1100];
	nvtxPayloadSchemaAttr_t a;

	memset(e, 0, sizeof e);
	for (int i = 0; i < 4; i++)
		e[i] = (nvtxPayloadSchemaEntry_t){ .flags = r->e[i].flags, .type = subst(r->e[i].type, r),
			.arrayOrUnionDetail = r->e[i].detail, .offset = r->e[i].off };
	for (int i = 4; i < 1100; i++)
		e[i] = (nvtxPayloadSchemaEntry_t){ .type = I32, .offset = 4u * (unsigned)i };
	memset(&a, 0, sizeof a);
	a.fieldMask = r->mask | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME;
	a.name = "row";
	a.type = r->type;
	a.entries = e;
	a.numEntries = (size_t)r->n;
	a.payloadStaticSize = r->size;
	a.packAlign = (uint64_t)r->pack;
	a.schemaId = r->id;
	return tly_nv_schema_register(0, &a, 0);
}

static void setup(void)
{
	static const nvtxPayloadSchemaEntry_t pt[] = { { .type = I32, .name = "x" }, { .type = I32, .name = "y", .offset = 4 } };
	static const nvtxPayloadSchemaEntry_t dy[] = { { .type = I32, .name = "n" }, { .flags = LEN, .type = F64, .name = "v" } };
	static const nvtxPayloadEnum_t en[] = { { "a", 1, 0 }, { "b", 2, 0 } };
	nvtxPayloadSchemaAttr_t a = { .fieldMask = F_ALL, .type = ST, .entries = pt, .numEntries = 2 };
	nvtxPayloadEnumAttr_t ea = { .fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES
			| NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE, .entries = en, .numEntries = 2, .sizeOfEnum = 4 };

	point_id = tly_nv_schema_register(0, &a, 0);
	a = (nvtxPayloadSchemaAttr_t){ .fieldMask = F_ALL, .type = DY, .entries = dy, .numEntries = 2 };
	dyn_id = tly_nv_schema_register(0, &a, 0);
	enum_id = tly_nv_enum_register(0, &ea, 0);
	TH_CHECK(point_id && dyn_id && enum_id);
	TH_EQ(tly_nv_schema_find(point_id)->size, 8);
}

/* A chain of schemas each nesting the previous: the 8th level is the last. */
static void depth_chain(void)
{
	nvtxPayloadSchemaEntry_t e = { .type = I32 };
	nvtxPayloadSchemaAttr_t a = { .fieldMask = F_ALL, .type = ST, .entries = &e, .numEntries = 1 };
	uint64_t id = 0;

	th_at(__LINE__);
	for (int level = 1; level <= 9; level++) {
		uint64_t next = tly_nv_schema_register(0, &a, 0);

		if (level <= TLY_NV_MAX_DEPTH) {
			TH_CHECK(next != 0);
			TH_EQ(tly_nv_schema_find(next)->depth, level);
		} else {
			TH_EQ(next, 0);
			TH_CHECK(strstr(tly_nv_last_refusal(), "deeper than 8") != NULL);
		}
		id = next;
		e.type = id;
	}
	th_at(0);
}

static void enums(void)
{
	static const nvtxPayloadEnum_t en[] = { { "a", 1, 0 } };
	struct { int line; uint64_t mask, n, size; const nvtxPayloadEnum_t *e; int ok; } er[] = {
		{ __LINE__, NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES, 1, 4, en, 0 },
		{ __LINE__, NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES, 0, 4, en, 0 },
		{ __LINE__, NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES
			| NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE, 1, 3, en, 0 },
		{ __LINE__, NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES, 1, 4, NULL, 0 },
		{ __LINE__, NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES
			| NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE, 1, 2, en, 1 },
	};

	for (size_t i = 0; i < sizeof er / sizeof *er; i++) {
		nvtxPayloadEnumAttr_t a = { .fieldMask = er[i].mask, .entries = er[i].e, .numEntries = er[i].n,
					    .sizeOfEnum = er[i].size };

		th_at(er[i].line);
		TH_EQ(tly_nv_enum_register(0, &a, 0) != 0, er[i].ok);
	}
	th_at(0);
}

int main(void)
{
	int refused = 0, logs;

	setup();
	TH_EQ(tly_nv_schema_register(0, NULL, 0), 0);
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		const struct row *r = &rows[i];
		uint64_t id = submit(r);

		th_at(r->line);
		if (r->why) {
			TH_EQ(id, 0);
			TH_CHECK(strstr(tly_nv_last_refusal(), r->why) != NULL);
			if (!strstr(tly_nv_last_refusal(), r->why))
				fprintf(stderr, "  reason given: '%s', expected '%s'\n", tly_nv_last_refusal(), r->why);
			refused++;
		} else {
			TH_CHECK(id != 0);
		}
	}
	th_at(0);
	depth_chain();
	enums();
	/* each reason was logged once: the same rows again add no line */
	logs = tly_nvstub_logs();
	TH_CHECK(logs >= 18);
	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
		if (rows[i].why && rows[i].id != SID(90))
			TH_EQ(submit(&rows[i]), 0);
	TH_EQ(tly_nvstub_logs(), logs);
	printf("%d malformed schemas refused, %d reasons logged\n", refused, logs);
	tly_nv_registry_reset();
	return th_done();
}
