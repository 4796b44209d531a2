/*
 * nvtx_schema.c - payload schemas and enums registered by the application,
 * validated as nvToolsExtPayload.h describes (nvtx_check.c), given their
 * row type (nvtx_layout.c) and published (nvtx_registry.c): a malformed
 * schema is refused (registration returns 0) and reported once per reason.
 */
#include "nvtx/nvtx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt.h"

static void name_table(struct tly_nv_schema *s, const char *want)
{
	char buf[200];
	int n = tly_nv_nschemas(), dup = 0;

	if (want && *want)
		snprintf(buf, sizeof buf, "%s", want);
	else
		snprintf(buf, sizeof buf, "schema_%llu", (unsigned long long)s->id);
	for (char *c = buf; *c; c++)
		if (*c == '/' || *c == '.' || (unsigned char)*c < 32)
			*c = '_';
	for (int i = 0; i < n; i++)
		dup |= !strcmp(tly_nv_schema_at(i)->name, buf);
	if (dup)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "_%llu", (unsigned long long)s->id);
	s->name = strdup(buf);
}

static int id_free(uint64_t id)
{
	return !tly_nv_schema_find(id) && !tly_nv_enum_find(id);
}

/* forced_id: the id CUPTI chose when it handled the registration first. */
uint64_t tly_nv_schema_register(int domain, const nvtxPayloadSchemaAttr_t *a, uint64_t forced_id)
{
	struct tly_nv_schema *s = calloc(1, sizeof *s);
	uint64_t id = forced_id;
	const char *want = a && (a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NAME) ? a->name : NULL;

	if (!s)
		return 0;
	tly_nv_registry_lock(1);
	if (!id && a && (a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID) && a->schemaId) {
		id = a->schemaId;
		if (id < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START || id >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START
		    || !id_free(id))
			id = (uint64_t)tly_nv_refuse(want, "static schema id %s is out of range or taken", "") + 1;
	} else if (!id) {
		id = tly_nv_registry_next_id();
	}
	if (!id || tly_nv_nschemas() == TLY_NV_MAX_SCHEMAS || tly_nv_check(a, id, s) < 0)
		goto fail;
	s->domain = domain;
	name_table(s, want);
	s->row = s->name ? tly_nv_layout(s, &s->data_off) : NULL;
	if (!s->row) {
		tly_nv_refuse(want, "its table row would exceed %s", "256 MiB (or memory ran out)");
		goto fail;
	}
	tly_nv_schema_publish(s);
	tly_nv_registry_lock(0);
	return id;
fail:
	tly_nv_registry_lock(0);
	tly_nv_schema_free(s);
	return 0;
}

void tly_nv_schema_free(struct tly_nv_schema *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->e && i < s->n; i++)
		free(s->e[i].name);
	free(s->e);
	free(s->name);
	tly_nv_ct_free(s->row);
	free(s);
}

static struct tly_nv_enum *enum_build(const nvtxPayloadEnumAttr_t *a)
{
	struct tly_nv_enum *e = calloc(1, sizeof *e);

	if (!e)
		return NULL;
	e->n = a->numEntries;
	e->size = a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE ? a->sizeOfEnum : sizeof(int);
	e->name = strdup(a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_NAME && a->name ? a->name : "enum");
	e->names = calloc(e->n, sizeof *e->names);
	e->values = calloc(e->n, sizeof *e->values);
	for (size_t i = 0; e->names && e->values && i < e->n; i++) {
		const char *nm = a->entries[i].name;
		char alt[32];

		snprintf(alt, sizeof alt, "value_%zu", i);
		for (size_t j = 0; nm && j < i; j++)
			if (e->names[j] && !strcmp(e->names[j], nm))
				nm = NULL;           /* HDF5 enum names are unique */
		e->names[i] = strdup(nm ? nm : alt);
		e->values[i] = a->entries[i].value;
	}
	return e;
}

static int enum_bad(const nvtxPayloadEnumAttr_t *a)
{
	size_t sz;

	if (!a || !(a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES)
	    || !(a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES) || !a->entries)
		return tly_nv_refuse(a ? a->name : NULL, "enum without entries%s", "");
	if (!a->numEntries || a->numEntries > TLY_NV_MAX_ENTRIES)
		return tly_nv_refuse(a->name, "enum with %s entries", a->numEntries ? "too many" : "no");
	sz = a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE ? a->sizeOfEnum : sizeof(int);
	if (sz != 1 && sz != 2 && sz != 4 && sz != 8)
		return tly_nv_refuse(a->name, "enum size is not 1, 2, 4 or 8 bytes%s", "");
	return 0;
}

uint64_t tly_nv_enum_register(int domain, const nvtxPayloadEnumAttr_t *a, uint64_t forced_id)
{
	struct tly_nv_enum *e;
	uint64_t id = forced_id;

	tly_nv_registry_lock(1);
	if (enum_bad(a) || tly_nv_nenums() == TLY_NV_MAX_ENUMS)
		goto fail;
	if (!id && (a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID) && a->schemaId) {
		id = a->schemaId;
		if (id < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START || id >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START
		    || !id_free(id)) {
			tly_nv_refuse(a->name, "static enum id %s is out of range or taken", "");
			goto fail;
		}
	} else if (!id) {
		id = tly_nv_registry_next_id();
	}
	e = enum_build(a);
	if (!e || !e->name || !e->names || !e->values)
		goto fail;         /* (leaks only on out-of-memory) */
	e->id = id;
	e->domain = domain;
	tly_nv_enum_publish(e);
	tly_nv_registry_lock(0);
	return id;
fail:
	tly_nv_registry_lock(0);
	return 0;
}

/* Fuzzing only: no payload may be in flight. */
void tly_nv_registry_reset(void)
{
	tly_nv_registry_lock(1);
	for (int i = 0; i < tly_nv_nschemas(); i++)
		tly_nv_schema_free((struct tly_nv_schema *)tly_nv_schema_at(i));
	for (int i = 0; i < tly_nv_nenums(); i++) {
		struct tly_nv_enum *e = (struct tly_nv_enum *)tly_nv_enum_at(i);

		for (size_t k = 0; k < e->n; k++)
			free(e->names[k]);
		free(e->names);
		free(e->values);
		free(e->name);
		free(e);
	}
	tly_nv_registry_forget();
	tly_nv_registry_lock(0);
}
