/*
 * test_nvtx_decode.c - payload bytes to table rows: every entry kind
 * decoded to the value submitted (integers of each width and sign, floats,
 * fixed, UTF-16 and registered strings, enums, nested schemas, fixed and
 * length-indexed arrays, unions with an internal selector, offsets from
 * the payload's base); payloads that would make the decoder read past
 * their size are refused (table with __LINE__ rows); deferred timestamps
 * are converted through a conversion factor, two sync points and a clock.
 */
#include "nvtx/nvtx.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nv_stub_rt.h"
#include "tharness.h"

#define F_ALL (NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES \
	       | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME)

static struct tly_nv_arena arena;

/* Column k of the schema's entries in a decoded row. */
static void *col(const struct tly_nv_schema *s, void *row, size_t k)
{
	return (char *)row + s->row->f[s->data_off + k].off;
}

static int decode(uint64_t id, const void *p, size_t n, void *row, int follow)
{
	const struct tly_nv_schema *s = tly_nv_schema_find(id);
	struct tly_nv_dec d = { .arena = &arena, .follow_pointers = follow };

	memset(row, 0x5a, s->row->size);
	return tly_nv_decode(s, p, n, row, &d);
}

static uint64_t reg(uint64_t type, const nvtxPayloadSchemaEntry_t *e, size_t n, const char *name)
{
	nvtxPayloadSchemaAttr_t a = { .fieldMask = F_ALL, .name = name, .type = type, .entries = e, .numEntries = n };
	uint64_t id = tly_nv_schema_register(0, &a, 0);

	TH_CHECK(id != 0);
	return id;
}

typedef struct { int32_t x, y; } point_t;
typedef struct {
	int8_t i8; uint16_t u16; int32_t i32; int64_t i64; float f; double d;
	char s[8]; uint16_t w[4]; nvtxStringHandle_t h; int32_t en; point_t pt; int16_t arr[3];
	uint64_t off_s;       /* offset (from the payload's base) of a string after the struct */
} all_t;

static void static_struct(void)
{
	static const nvtxPayloadEnum_t en[] = { { "lo", 3, 0 }, { "hi", 9, 0 } };
	nvtxPayloadEnumAttr_t ea = { .fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES,
				     .entries = en, .numEntries = 2 };
	nvtxPayloadSchemaEntry_t pe[] = { { .type = NVTX_PAYLOAD_ENTRY_TYPE_INT32, .name = "x" },
					  { .type = NVTX_PAYLOAD_ENTRY_TYPE_INT32, .name = "y", .offset = 4 } };
	uint64_t pid = reg(NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, pe, 2, "point"), eid = tly_nv_enum_register(0, &ea, 0);
	nvtxPayloadSchemaEntry_t e[] = {
		{ 0, NVTX_PAYLOAD_ENTRY_TYPE_INT8, "i8", NULL, 0, offsetof(all_t, i8), NULL, NULL },
		{ 0, NVTX_PAYLOAD_ENTRY_TYPE_UINT16, "u16", NULL, 0, offsetof(all_t, u16), NULL, NULL },
		{ 0, NVTX_PAYLOAD_ENTRY_TYPE_INT32, "i32", NULL, 0, offsetof(all_t, i32), NULL, NULL },
		{ 0, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "i64", NULL, 0, offsetof(all_t, i64), NULL, NULL },
		{ 0, NVTX_PAYLOAD_ENTRY_TYPE_FLOAT, "f", NULL, 0, offsetof(all_t, f), NULL, NULL },
		{ 0, NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, "d", NULL, 0, offsetof(all_t, d), NULL, NULL },
		{ 0, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING, "s", NULL, 8, offsetof(all_t, s), NULL, NULL },
		{ 0, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF16, "w", NULL, 4, offsetof(all_t, w), NULL, NULL },
		{ 0, NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE, "h", NULL, 0, offsetof(all_t, h), NULL, NULL },
		{ 0, eid, "en", NULL, 0, offsetof(all_t, en), NULL, NULL },
		{ 0, pid, "pt", NULL, 0, offsetof(all_t, pt), NULL, NULL },
		{ NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE, NVTX_PAYLOAD_ENTRY_TYPE_INT16, "arr", NULL, 3, offsetof(all_t, arr), NULL, NULL },
		{ NVTX_PAYLOAD_ENTRY_FLAG_OFFSET_FROM_BASE, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING, "far", NULL, 0, offsetof(all_t, off_s), NULL, NULL },
	};
	nvtxPayloadSchemaAttr_t a = { .fieldMask = F_ALL | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE, .name = "all",
				      .type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, .entries = e, .numEntries = 13,
				      .payloadStaticSize = sizeof(all_t) };
	uint64_t id = tly_nv_schema_register(0, &a, 0);
	const struct tly_nv_schema *s = tly_nv_schema_find(id);
	unsigned char buf[sizeof(all_t) + 16], row[1024];
	all_t v = { -7, 65000, -123456, -(1ll << 50), 0.1f, -1.0 / 3, "abcdefg", { 'W', 0x263A, 'z', 0 },
		    tly_nv_string_register(0, "registered"), 9, { -1, 2 }, { -3, 300, 30000 }, sizeof(all_t) };
	char *str;
	int32_t i32;
	int64_t i64;
	float f;
	double d;
	int16_t arr[3];
	point_t pt;

	TH_CHECK(s && s->row->size <= sizeof row);
	if (!s)
		return;
	memset(buf, 0, sizeof buf);
	memcpy(buf, &v, sizeof v);
	memcpy(buf + sizeof v, "far away", 9);
	TH_EQ(decode(id, buf, sizeof buf, row, 0), 0);
	TH_EQ(*(int8_t *)col(s, row, 0), -7);
	TH_EQ(*(uint16_t *)col(s, row, 1), 65000);
	memcpy(&i32, col(s, row, 2), 4);
	TH_EQ(i32, -123456);
	memcpy(&i64, col(s, row, 3), 8);
	TH_EQ(i64, -(1ll << 50));
	memcpy(&f, col(s, row, 4), 4);
	TH_CHECK(f == 0.1f);
	memcpy(&d, col(s, row, 5), 8);
	TH_CHECK(d == -1.0 / 3);
	memcpy(&str, col(s, row, 6), sizeof str);
	TH_CHECK(!strcmp(str, "abcdefg"));
	memcpy(&str, col(s, row, 7), sizeof str);
	TH_CHECK(!strcmp(str, "W\xe2\x98\xbaz"));       /* UTF-16 to UTF-8 */
	memcpy(&str, col(s, row, 8), sizeof str);
	TH_CHECK(!strcmp(str, "registered"));
	memcpy(&i32, col(s, row, 9), 4);
	TH_EQ(i32, 9);
	memcpy(&pt, col(s, row, 10), sizeof pt);
	TH_EQ(pt.x, -1);
	TH_EQ(pt.y, 2);
	memcpy(arr, col(s, row, 11), sizeof arr);
	TH_EQ(arr[0], -3);
	TH_EQ(arr[1], 300);
	TH_EQ(arr[2], 30000);
	memcpy(&str, col(s, row, 12), sizeof str);
	TH_CHECK(!strcmp(str, "far away"));
	/* an offset past the payload's end is not followed */
	v.off_s = 1u << 20;
	memcpy(buf, &v, sizeof v);
	TH_EQ(decode(id, buf, sizeof buf, row, 0), 0);
	memcpy(&str, col(s, row, 12), sizeof str);
	TH_CHECK(!strcmp(str, ""));
	/* one byte short of the static size */
	TH_EQ(decode(id, buf, sizeof(all_t) - 1, row, 0), -1);
}

static void union_internal(void)
{
	nvtxPayloadSchemaEntry_t e[] = {
		{ .type = NVTX_PAYLOAD_ENTRY_TYPE_UNION_SELECTOR, .name = "which" },
		{ .type = NVTX_PAYLOAD_ENTRY_TYPE_INT32, .name = "as_int" },
		{ .type = NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, .name = "as_double" },
	};
	uint64_t id = reg(NVTX_PAYLOAD_SCHEMA_TYPE_UNION_WITH_INTERNAL_SELECTOR, e, 3, "u");
	const struct tly_nv_schema *s = tly_nv_schema_find(id);
	struct { uint32_t which; uint32_t pad; double v; } p = { 2, 0, 6.5 };
	unsigned char row[512];
	int32_t selected;
	double d;

	TH_EQ(s->size, 16);
	TH_EQ(decode(id, &p, sizeof p, row, 0), 0);
	memcpy(&selected, (char *)row + s->row->f[s->data_off - 1].off, 4);
	TH_EQ(selected, 2);
	memcpy(&d, col(s, row, 2), 8);
	TH_CHECK(d == 6.5);
	p.which = 7;                 /* no such member: none selected */
	TH_EQ(decode(id, &p, sizeof p, row, 0), 0);
	memcpy(&selected, (char *)row + s->row->f[s->data_off - 1].off, 4);
	TH_EQ(selected, -1);
}

static uint64_t dyn_id;

static void dynamic(void)
{
	nvtxPayloadSchemaEntry_t e[] = {
		{ .type = NVTX_PAYLOAD_ENTRY_TYPE_UINT32, .name = "n" },
		{ .flags = NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX, .type = NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, .name = "v" },
		{ .flags = NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED, .type = NVTX_PAYLOAD_ENTRY_TYPE_CSTRING, .name = "tag" },
		{ .flags = NVTX_PAYLOAD_ENTRY_FLAG_POINTER, .type = NVTX_PAYLOAD_ENTRY_TYPE_CSTRING, .name = "ptr" },
	};
	const struct tly_nv_schema *s;
	unsigned char buf[64], row[512];
	uint32_t n = 3;
	double v[3] = { 1.5, -2.0, 1e300 };
	const char *ext = "pointed", *str;
	struct tly_nv_vl vl;

	dyn_id = reg(NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC, e, 4, "dyn");
	s = tly_nv_schema_find(dyn_id);
	memcpy(buf, &n, 4);
	memcpy(buf + 8, v, sizeof v);
	memcpy(buf + 32, "xyz", 4);
	memcpy(buf + 40, &ext, sizeof ext);      /* pointer aligned to 8 */
	TH_EQ(decode(dyn_id, buf, 48, row, 1), 0);
	memcpy(&vl, col(s, row, 1), sizeof vl);
	TH_EQ(vl.len, 3);
	TH_CHECK(vl.len == 3 && !memcmp(vl.p, v, sizeof v));
	memcpy(&str, col(s, row, 2), sizeof str);
	TH_CHECK(!strcmp(str, "xyz"));
	memcpy(&str, col(s, row, 3), sizeof str);
	TH_CHECK(!strcmp(str, "pointed"));
	/* untrusted input (the fuzzer): pointers are not followed */
	TH_EQ(decode(dyn_id, buf, 48, row, 0), 0);
	memcpy(&str, col(s, row, 3), sizeof str);
	TH_CHECK(!strcmp(str, ""));
}

/* Payloads that claim more than they hold: refused, nothing read beyond. */
static void bounds(void)
{
	struct { int line; uint32_t n; size_t size; const char *tag; } rows[] = {
		{ __LINE__, 1000, 48, "xyz" },          /* length index beyond the payload */
		{ __LINE__, 0xFFFFFFFFu, 48, "xyz" },   /* absurd length index */
		{ __LINE__, 3, 35, "xyz" },             /* tag not terminated inside */
		{ __LINE__, 3, 20, "xyz" },             /* array cut */
		{ __LINE__, 3, 2, "xyz" },              /* count cut */
		{ __LINE__, 3, (size_t)TLY_NV_MAX_BYTES + 1, "xyz" },
	};
	unsigned char row[512];

	for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
		unsigned char tmpl[64] = { 0 }, *buf;
		size_t n = rows[i].size;

		th_at(rows[i].line);
		memcpy(tmpl, &rows[i].n, 4);
		memcpy(tmpl + 32, rows[i].tag, strlen(rows[i].tag) + 1);
		/* exactly `size` bytes on the heap: ASan sees any read beyond */
		buf = n <= sizeof tmpl ? malloc(n) : NULL;
		if (buf)
			memcpy(buf, tmpl, n);
		TH_EQ(decode(dyn_id, buf ? buf : tmpl, n, row, 0), -1);
		free(buf);
	}
	th_at(0);
}

static void times(void)
{
	nvtxTimeDomainAttr_t ta = { .timestampTypeId = NVTX_TIMESTAMP_TYPE_NONE };
	uint64_t td = tly_nv_time_domain_register(0, &ta), tf = tly_nv_time_domain_register(0, &ta);
	nvtxTimeDomainAttr_t rt = { .timestampTypeId = NVTX_TIMESTAMP_TYPE_CPU_CLOCK_GETTIME_REALTIME };
	uint64_t tr = tly_nv_time_domain_register(0, &rt), tn = tly_nv_time_domain_register(0, &ta);
	int64_t out = 0, base = 5000000000000LL;
	struct timespec a, m;

	TH_CHECK(td && tf && tr && tn);
	/* two sync points: ticks of 10 ns, offset 1e6 ticks */
	tly_nv_sync(td, NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED, 1000000, base);
	tly_nv_sync(td, NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED, 2000000, base + 10000000);
	TH_EQ(tly_nv_convert(td, 1500123, &out), 0);
	TH_CHECK(llabs(out - (base + 5001230)) <= 1000);
	TH_EQ(out, base + 5001230);
	/* a conversion factor: 2.5 ns per tick from (100, base) */
	tly_nv_factor(tf, NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED, 2.5, 100, base);
	TH_EQ(tly_nv_convert(tf, 500, &out), 0);
	TH_EQ(out, base + 1000);
	/* CLOCK_REALTIME domain: offset to CLOCK_MONOTONIC sampled now */
	clock_gettime(CLOCK_REALTIME, &a);
	clock_gettime(CLOCK_MONOTONIC, &m);
	TH_EQ(tly_nv_convert(tr, (int64_t)a.tv_sec * 1000000000LL + a.tv_nsec, &out), 0);
	TH_CHECK(llabs(out - ((int64_t)m.tv_sec * 1000000000LL + m.tv_nsec)) < 2000000);
	/* a domain with no relation and no clock does not convert */
	TH_EQ(tly_nv_convert(tn, 42, &out), -1);
	/* no domain: already Tally's clock */
	TH_EQ(tly_nv_convert(0, 42, &out), 0);
	TH_EQ(out, 42);
}

int main(void)
{
	static_struct();
	union_internal();
	dynamic();
	bounds();
	times();
	tly_nv_arena_free(&arena);
	tly_nv_registry_reset();
	return th_done();
}
