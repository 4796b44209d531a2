/*
 * test_nvtx_threads.c - the NVTX registries under concurrency (TSan runs
 * label `threads`): threads register schemas, strings and time relations
 * while the others look schemas up without the lock, decode payloads with
 * them and convert timestamps.  Every value is checked: ids unique and
 * found, decoded rows equal what was submitted, string handles resolve to
 * their text, conversions exact, counts exact at the end.
 */
#include "nvtx/nvtx.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "nv_stub_rt.h"
#include "tharness.h"

#define THREADS 4
#define PER 50

struct out { uint64_t ids[PER]; nvtxStringHandle_t str[PER]; int bad; };
static struct out res[THREADS];
static uint64_t td_shared;

typedef struct { int32_t a; double b; } pl_t;

static int one(int t, int k, struct tly_nv_arena *ar)
{
	nvtxPayloadSchemaEntry_t e[] = { { .type = NVTX_PAYLOAD_ENTRY_TYPE_INT32, .name = "a" },
					 { .type = NVTX_PAYLOAD_ENTRY_TYPE_DOUBLE, .name = "b", .offset = 8 } };
	char name[32], text[32];
	nvtxPayloadSchemaAttr_t at = { .fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES
			| NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME, .name = name,
			.type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, .entries = e, .numEntries = 2 };
	pl_t v = { t * 1000 + k, t + k / 8.0 };
	unsigned char row[256];
	struct tly_nv_dec d = { .arena = ar };
	const struct tly_nv_schema *s;
	int32_t a;
	double b;
	int64_t out = 0;
	int bad = 0;

	snprintf(name, sizeof name, "t%d_k%d", t, k);
	snprintf(text, sizeof text, "text %d %d", t, k);
	res[t].ids[k] = tly_nv_schema_register(0, &at, 0);
	res[t].str[k] = tly_nv_string_register(0, text);
	/* another thread's schema published earlier, looked up lock-free */
	s = tly_nv_schema_find(res[t].ids[k]);
	bad += !s || s->size != 16 || s->row->size > sizeof row || strcmp(s->name, name);
	if (!bad && tly_nv_decode(s, &v, sizeof v, row, &d) == 0) {
		memcpy(&a, row + s->row->f[s->data_off].off, 4);
		memcpy(&b, row + s->row->f[s->data_off + 1].off, 8);
		bad += a != v.a || b != v.b;
	} else {
		bad++;
	}
	bad += !tly_nv_string(res[t].str[k]) || strcmp(tly_nv_string(res[t].str[k]), text);
	tly_nv_sync(td_shared, NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED, 1000 + k, 2000 + 2 * k);
	bad += tly_nv_convert(td_shared, 1500, &out) != 0 || out != 3000;
	return bad;
}

static void *worker(void *arg)
{
	int t = (int)(intptr_t)arg;
	struct tly_nv_arena ar = { 0 };

	for (int k = 0; k < PER; k++)
		res[t].bad += one(t, k, &ar);
	tly_nv_arena_free(&ar);
	return NULL;
}

int main(void)
{
	nvtxTimeDomainAttr_t ta = { .timestampTypeId = NVTX_TIMESTAMP_TYPE_NONE };
	pthread_t th[THREADS];
	int distinct = 1;

	td_shared = tly_nv_time_domain_register(0, &ta);
	/* two sync points first, so every conversion is defined: t -> 2 t */
	tly_nv_sync(td_shared, NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED, 0, 0);
	tly_nv_sync(td_shared, NVTX_TIMESTAMP_TYPE_TOOL_PROVIDED, 1000, 2000);
	for (int t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < THREADS; t++) {
		TH_EQ(res[t].bad, 0);
		for (int k = 0; k < PER; k++)
			for (int u = 0; u < THREADS; u++)
				for (int j = 0; j < PER; j++)
					if ((u != t || j != k) && res[u].ids[j] == res[t].ids[k])
						distinct = 0;
	}
	TH_CHECK(distinct);
	TH_EQ(tly_nv_nschemas(), THREADS * PER);
	tly_nv_registry_reset();
	return th_done();
}
