/*
 * fuzz_nvtx.c - libFuzzer target over payload schema registration and
 * payload decoding.  The input describes up to three schemas (and an
 * enum) whose entries may nest the earlier ones, then payload bytes that
 * are decoded by every schema registered.  Registration must refuse what
 * it cannot bound; decoding must never read outside the payload (ASan),
 * never follow a pointer (untrusted input) and never crash.
 *
 * Built with TLY_LIBFUZZER (clang -fsanitize=fuzzer); otherwise main()
 * replays the files of the directories given (test_nvtx_corpus).
 */
#include "nvtx/nvtx.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nv_stub_rt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct rd { const uint8_t *p; size_t n; };

static uint64_t get(struct rd *r, size_t bytes)
{
	uint64_t v = 0;

	for (size_t i = 0; i < bytes && r->n; i++, r->p++, r->n--)
		v |= (uint64_t)*r->p << (8 * i);
	return v;
}

/* An entry type: mostly predefined ones, sometimes an earlier id. */
static uint64_t pick_type(struct rd *r, const uint64_t *ids, int nids)
{
	uint8_t b = (uint8_t)get(r, 1);

	if (b >= 0xE0 && nids)
		return ids[b % nids];
	if (b >= 0xD0)
		return NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + (b & 3u);
	return b % 110u;
}

static uint64_t pick_detail(struct rd *r)
{
	uint8_t b = (uint8_t)get(r, 1);

	if (b < 0xC0)
		return b & 7u;
	return get(r, b < 0xF0 ? 2 : 8);
}

static uint64_t one_schema(struct rd *r, const uint64_t *ids, int nids, int k)
{
	nvtxPayloadSchemaEntry_t e[6];
	nvtxPayloadSchemaAttr_t a;
	uint8_t h = (uint8_t)get(r, 1);
	size_t n = (size_t)get(r, 1) % 7u;

	memset(e, 0, sizeof e);
	memset(&a, 0, sizeof a);
	for (size_t i = 0; i < n && i < 6; i++) {
		e[i].flags = get(r, 2) & 0x7FFFu;
		e[i].type = pick_type(r, ids, nids);
		e[i].arrayOrUnionDetail = pick_detail(r);
		e[i].offset = (h & 0x80) ? get(r, 1) : 0;
	}
	a.fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES
		      | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME;
	a.name = k ? "fz" : "payload";      /* clashing names are renamed */
	a.type = h % 5u;
	a.entries = e;
	a.numEntries = n;
	if (h & 0x08) {
		a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE;
		a.payloadStaticSize = get(r, 1);
	}
	if (h & 0x10) {
		a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ALIGNMENT;
		a.packAlign = get(r, 1) & 0x1Fu;
	}
	if (h & 0x20) {
		a.fieldMask |= NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID;
		a.schemaId = NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + (get(r, 1) & 3u);
	}
	return tly_nv_schema_register(0, &a, 0);
}

static uint64_t one_enum(struct rd *r)
{
	static const nvtxPayloadEnum_t en[] = { { "a", 0, 0 }, { "b", 1, 0 }, { "a", 7, 0 } };
	nvtxPayloadEnumAttr_t a;
	uint8_t h = (uint8_t)get(r, 1);

	memset(&a, 0, sizeof a);
	a.fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES
		      | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE;
	a.entries = en;
	a.numEntries = h % 4u;
	a.sizeOfEnum = (h >> 2) % 10u;
	return tly_nv_enum_register(0, &a, 0);
}

static void decode_all(const uint64_t *ids, int nids, const uint8_t *p, size_t n)
{
	struct tly_nv_arena arena = { 0 };

	for (int i = 0; i < nids; i++) {
		const struct tly_nv_schema *s = tly_nv_schema_find(ids[i]);
		struct tly_nv_dec d = { .arena = &arena, .follow_pointers = 0 };
		void *row;

		if (!s || s->row->size > (1u << 24))
			continue;
		row = calloc(1, s->row->size);
		if (row) {
			/* an exact-size heap copy: ASan reports any read beyond */
			uint8_t *copy = malloc(n ? n : 1);

			if (copy) {
				memcpy(copy, p, n);
				tly_nv_decode(s, copy, n, row, &d);
				free(copy);
			}
		}
		free(row);
	}
	tly_nv_arena_free(&arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rd r = { data, size };
	uint64_t ids[4];
	int nids = 0, ns = (int)(get(&r, 1) % 3u) + 1;

	if (get(&r, 1) & 1) {
		uint64_t id = one_enum(&r);

		if (id)
			ids[nids++] = id;
	}
	for (int k = 0; k < ns; k++) {
		uint64_t id = one_schema(&r, ids, nids, k);

		if (id)
			ids[nids++] = id;
	}
	decode_all(ids, nids, r.p, r.n);
	tly_nv_registry_reset();
	return 0;
}

#ifndef TLY_LIBFUZZER
static int replay_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[4096];
		uint8_t buf[1 << 16];
		FILE *f;
		size_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (!(f = fopen(path, "rb")))
			continue;
		len = fread(buf, 1, sizeof buf, f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, len);
		n++;
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	int total = 0;

	for (int i = 1; i < argc; i++) {
		int n = replay_dir(argv[i]);

		if (n < 0) {
			fprintf(stderr, "cannot read %s\n", argv[i]);
			return 1;
		}
		total += n;
	}
	printf("%d inputs replayed\n", total);
	return total >= 8 ? 0 : 1;
}
#endif
