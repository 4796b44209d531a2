/*
 * nvtx_app.c - an NVTX-annotated program for check_nvtx_file.py, run under
 * tally-run: nested push/pop ranges, a payload struct (ints, floats, a
 * string, an enum, a nested struct, a fixed array) defined with
 * nvToolsExtPayloadHelper.h's macros, a dynamic schema with a
 * length-indexed array, and a deferred batch in a custom time domain with
 * two sync points; core forms too: a start/end range ended on another
 * thread, wide and registered messages, a category name, marks.  It
 * prints every value it submitted (floats in %a, so the checker compares
 * them exactly) and what nvtxDomainIsEnabled answered.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>
#include <stdio.h>
#include <string.h>

#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>
#include <nvtx3/nvToolsExtPayloadHelper.h>
#include <nvtx3/nvToolsExtSemanticsTime.h>

/* The helper macros leave the trailing fields of the entries and the
 * attributes to zero-initialisation. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

NVTX_DEFINE_STRUCT_WITH_SCHEMA(inner_t, "inner",
	NVTX_PAYLOAD_ENTRIES((int16_t, a, TYPE_INT16, "a"), (double, b, TYPE_DOUBLE, "b")))

static volatile double sink;

static void spin(int n)
{
	for (int i = 0; i < n; i++)
		sink += i * 0.5;
}

static void nested(void)
{
	for (int k = 0; k < 5; k++) {
		nvtxRangePushA("outer");
		spin(20000);
		for (int j = 0; j < 3; j++) {
			nvtxRangePushA("inner");
			spin(50000);
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
	NVTX_DEFINE_STRUCT_WITH_SCHEMA(outer_t, "outer", NVTX_PAYLOAD_ENTRIES(
		(int32_t, i, TYPE_INT32, "i"), (uint64_t, u, TYPE_UINT64, "u"), (float, f, TYPE_FLOAT, "f"),
		(double, d, TYPE_DOUBLE, "d"), (char, (s, 16), TYPE_CSTRING, "s", NULL, 16, EVENT_MESSAGE),
		(int32_t, color, NVTX_PAYLOAD_NESTED(color_id), "color"),
		(inner_t, in, NVTX_PAYLOAD_NESTED(inner_id), "in"),
		(int32_t, (arr, 3), TYPE_INT32, "arr", NULL, 3, ARRAY_FIXED_SIZE)))
	uint64_t id = NVTX_PAYLOAD_SCHEMA_REGISTER(dom, outer_t);

	printf("ids %llu %llu %llu\n", (unsigned long long)color_id, (unsigned long long)inner_id,
	       (unsigned long long)id);
	for (int k = 0; k < 3; k++) {
		outer_t v = { -5 - k, 1ull << 40 | (uint64_t)k, 1.5f * (float)k + 0.1f, 2.25 * k - 1.0 / 3, "",
			      k ? 7 : 2, { (int16_t)(-300 - k), 0.125 * k }, { k, 10 * k, -k } };
		nvtxPayloadData_t pd = { id, sizeof v, &v };

		snprintf(v.s, sizeof v.s, "msg%d", k);
		nvtxRangePushPayload(dom, &pd, 1);
		nvtxRangePopPayload(dom, NULL, 0);
		printf("outer %d %llu %a %a %s %d %d %a %d %d %d\n", v.i, (unsigned long long)v.u, (double)v.f, v.d,
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

	/* two payloads of different lengths: the array length comes from n */
	for (uint32_t n = 2; n <= 4; n += 2) {
		unsigned char buf[128];
		double v[4] = { 1.5, -2.75, 1e10, 0.1 };
		char tag[16];
		nvtxPayloadData_t pd;

		snprintf(tag, sizeof tag, "tag%u", n);
		memcpy(buf, &n, 4);
		memcpy(buf + 8, v, n * sizeof *v);          /* doubles aligned to 8 */
		memcpy(buf + 8 + n * sizeof *v, tag, strlen(tag) + 1);
		pd = (nvtxPayloadData_t){ id, 8 + n * sizeof *v + strlen(tag) + 1, buf };
		nvtxMarkPayload(dom, &pd, 1);
		printf("dyn %u", n);
		for (uint32_t i = 0; i < n; i++)
			printf(" %a", v[i]);
		printf(" %s\n", tag);
	}
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
	/* custom clock: ticks of 10 ns, 5e6 ticks ahead of Tally's clock */
	int64_t now = nvtxTimestampGet(), c0 = now / 10 + 5000000, c1 = c0 + 1000000;
	ev_t ev[3];
	nvtxEventBatch_t b = { .eventSchemaId = id, .size = sizeof ev, .events = ev };

	nvtxTimeSyncPoint(dom, td, NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED, c0, (c0 - 5000000) * 10);
	nvtxTimeSyncPoint(dom, td, NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED, c1, (c1 - 5000000) * 10);
	for (int k = 0; k < 3; k++) {
		ev[k] = (ev_t){ c0 + 1000 * k + 7, c0 + 1000 * k + 333, 100 + k, 0 };
		printf("deferred %d %lld %lld\n", 100 + k, (long long)((ev[k].t0 - 5000000) * 10),
		       (long long)((ev[k].t1 - 5000000) * 10));
	}
	nvtxEventBatchSubmit(dom, &b);
}

static void *end_range(void *id)
{
	nvtxRangeEnd(*(nvtxRangeId_t *)id);
	return NULL;
}

static void core_forms(nvtxDomainHandle_t dom)
{
	nvtxStringHandle_t h = nvtxDomainRegisterStringA(dom, "registered");
	nvtxEventAttributes_t a = { .version = NVTX_VERSION, .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
				    .category = 3, .messageType = NVTX_MESSAGE_TYPE_REGISTERED };
	nvtxRangeId_t id = nvtxRangeStartA("async");
	pthread_t th;

	pthread_create(&th, NULL, end_range, &id);
	pthread_join(th, NULL);
	nvtxNameCategoryA(3, "io");
	a.message.registered = h;
	nvtxDomainRangePushEx(dom, &a);
	nvtxDomainRangePop(dom);
	nvtxRangePushW(L"wide \u00e9");
	nvtxRangePop();
	nvtxMarkA("mark");
}

int main(void)
{
	nvtxDomainHandle_t dom = nvtxDomainCreateA("app");

	printf("enabled %d\n", nvtxDomainIsEnabled(dom));
	nested();
	core_forms(dom);
	payload_struct(dom);
	dynamic_schema(dom);
	deferred(dom);
	nvtxMarkA("done");
	return 0;
}
