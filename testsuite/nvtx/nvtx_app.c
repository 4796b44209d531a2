/*
 * nvtx_app.c - an NVTX-annotated program for test_nvtx.py: nested
 * push/pop ranges, a payload struct (ints, float, double, string, enum,
 * nested struct, fixed array) built with nvToolsExtPayloadHelper.h, a
 * dynamic schema with a length-indexed array, and a deferred batch in a
 * custom time domain with two sync points.  It prints what it submitted
 * (one line per value) for the checker.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>
#include <nvtx3/nvToolsExtPayloadHelper.h>
#include <nvtx3/nvToolsExtSemanticsTime.h>

NVTX_DEFINE_STRUCT_WITH_SCHEMA(inner_t, "inner", NVTX_PAYLOAD_ENTRIES((int16_t, a, TYPE_INT16, "a"),
								   (double, b, TYPE_DOUBLE, "b")))

typedef struct { int32_t i; uint64_t u; float f; double d; char s[16]; int32_t color; inner_t in;
		 int32_t arr[3]; } outer_t;

static void nested(void)
{
	for (int k = 0; k < 5; k++) {
		nvtxRangePushA("outer");
		for (int j = 0; j < 3; j++) {
			nvtxRangePushA("inner");
			nvtxRangePop();
		}
		nvtxRangePop();
	}
}

static void payload_struct(nvtxDomainHandle_t dom)
{
	static const nvtxPayloadEnum_t colors[] = { { "red", 1, 0 }, { "green", 2, 0 }, { "blue", 7, 0 } };
	nvtxPayloadEnumAttr_t ea = { .fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME | NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES
			| NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE,
			.name = "color", .entries = colors, .numEntries = 3, .sizeOfEnum = 4 };
	uint64_t color_id = nvtxPayloadEnumRegister(dom, &ea);
	uint64_t inner_id = NVTX_PAYLOAD_SCHEMA_REGISTER(dom, inner_t);
	nvtxPayloadSchemaEntry_t e[] = {
		{ 0, NVTX_PAYLOAD_ENTRY_TYPE_INT32, "i", NULL, 0, offsetof(outer_t, i), NULL, NULL },
		{ 0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "u", NULL, 0, offsetof(outer_t, u), NULL, NULL },
		{ 0, NVTX_PAYLOAD_ENTRY_TYPE_FLOAT, "f", NULL, 0, offsetof(outer_t, f), NULL, NULL },
		{ 0, NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, "d", NULL, 0, offsetof(outer_t, d), NULL, NULL },
		{ NVTX_PAYLOAD_ENTRY_FLAG_EVENT_MESSAGE, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING, "s", NULL, 16, offsetof(outer_t, s), NULL, NULL },
		{ 0, color_id, "color", NULL, 0, offsetof(outer_t, color), NULL, NULL },
		{ 0, inner_id, "in", NULL, 0, offsetof(outer_t, in), NULL, NULL },
		{ NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_FIXED_SIZE, NVTX_PAYLOAD_ENTRY_TYPE_INT32, "arr", NULL, 3, offsetof(outer_t, arr), NULL, NULL },
	};
	nvtxPayloadSchemaAttr_t a = { .fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE
			| NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES
			| NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE, .name = "outer",
			.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, .entries = e, .numEntries = 8,
			.payloadStaticSize = sizeof(outer_t) };
	uint64_t id = nvtxPayloadSchemaRegister(dom, &a);

	for (int k = 0; k < 3; k++) {
		outer_t v = { -5 - k, 1ull << 40 | (uint64_t)k, 1.5f * (float)k, 2.25 * k, "", k ? 7 : 2,
			      { (int16_t)(-300 - k), 0.125 * k }, { k, 10 * k, -k } };
		nvtxPayloadData_t pd = { id, sizeof v, &v };

		snprintf(v.s, sizeof v.s, "msg%d", k);
		nvtxRangePushPayload(dom, &pd, 1);
		nvtxRangePopPayload(dom, NULL, 0);
		printf("outer %d %llu %.9g %.17g %s %d %d %.17g %d %d %d\n", v.i, (unsigned long long)v.u, v.f, v.d,
		       v.s, v.color, v.in.a, v.in.b, v.arr[0], v.arr[1], v.arr[2]);
	}
}

static void dynamic_schema(nvtxDomainHandle_t dom)
{
	nvtxPayloadSchemaEntry_t e[] = {
		{ 0, NVTX_PAYLOAD_ENTRY_TYPE_UINT32, "n", NULL, 0, 0, NULL, NULL },
		{ NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_LENGTH_INDEX, NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, "vals", NULL, 0, 0, NULL, NULL },
		{ NVTX_PAYLOAD_ENTRY_FLAG_ARRAY_ZERO_TERMINATED, NVTX_PAYLOAD_ENTRY_TYPE_CSTRING, "tag", NULL, 0, 0, NULL, NULL },
	};
	nvtxPayloadSchemaAttr_t a = { .fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE
			| NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES,
			.name = "dyn", .type = NVTX_PAYLOAD_SCHEMA_TYPE_DYNAMIC, .entries = e, .numEntries = 3 };
	uint64_t id = nvtxPayloadSchemaRegister(dom, &a);
	unsigned char buf[128];
	uint32_t n = 3;
	double v[3] = { 1.5, -2.75, 1e10 };

	memcpy(buf, &n, 4);
	memcpy(buf + 8, v, sizeof v);        /* doubles aligned to 8 */
	memcpy(buf + 8 + sizeof v, "hello", 6);
	nvtxPayloadData_t pd = { id, 8 + sizeof v + 6, buf };
	nvtxMarkPayload(dom, &pd, 1);
	printf("dyn 3 1.5 -2.75 1e10 hello\n");
}

typedef struct { int64_t t0, t1; int32_t tag; int32_t pad; } ev_t;

static void deferred(nvtxDomainHandle_t dom)
{
	nvtxTimeDomainAttr_t ta = { .timestampTypeId = NVTX_TIMESTAMP_TYPE_NONE };
	uint64_t td = nvtxTimeDomainRegister(dom, &ta);
	nvtxSemanticsTime_t sem = { { sizeof sem, NVTX_SEMANTIC_ID_TIME_V1, NVTX_TIME_SEMANTIC_VERSION, NULL }, td };
	nvtxPayloadSchemaEntry_t e[] = {
		{ NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_RANGE_BEGIN, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "t0", NULL, 0, offsetof(ev_t, t0), &sem.header, NULL },
		{ NVTX_PAYLOAD_ENTRY_FLAG_TIMESTAMP | NVTX_PAYLOAD_ENTRY_FLAG_RANGE_END, NVTX_PAYLOAD_ENTRY_TYPE_INT64, "t1", NULL, 0, offsetof(ev_t, t1), &sem.header, NULL },
		{ 0, NVTX_PAYLOAD_ENTRY_TYPE_INT32, "tag", NULL, 0, offsetof(ev_t, tag), NULL, NULL },
	};
	nvtxPayloadSchemaAttr_t a = { .fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE
			| NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES
			| NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE, .name = "gpu_events",
			.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, .entries = e, .numEntries = 3, .payloadStaticSize = sizeof(ev_t) };
	uint64_t id = nvtxPayloadSchemaRegister(dom, &a);
	/* custom clock: ticks of 10 ns, offset 5e6 ticks from Tally's clock */
	int64_t now = nvtxTimestampGet(), c0 = now / 10 + 5000000, c1 = c0 + 1000000;

	nvtxTimeSyncPoint(dom, td, NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED, c0, (c0 - 5000000) * 10);
	nvtxTimeSyncPoint(dom, td, NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED, c1, (c1 - 5000000) * 10);
	ev_t ev[3];
	for (int k = 0; k < 3; k++) {
		ev[k] = (ev_t){ c0 + 1000 * k, c0 + 1000 * k + 333, 100 + k, 0 };
		printf("deferred %d %lld %lld\n", 100 + k, (long long)((ev[k].t0 - 5000000) * 10),
		       (long long)((ev[k].t1 - 5000000) * 10));
	}
	nvtxEventBatch_t b = { .eventSchemaId = id, .size = sizeof ev, .events = ev };
	nvtxEventBatchSubmit(dom, &b);
}

int main(void)
{
	nvtxDomainHandle_t dom = nvtxDomainCreateA("app");

	nested();
	payload_struct(dom);
	dynamic_schema(dom);
	deferred(dom);
	nvtxMarkA("done");
	return 0;
}
