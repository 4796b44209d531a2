/*
 * nvtx_schema.c - payload schemas and enums registered by the application,
 * validated as nvToolsExtPayload.h describes: a malformed schema is refused
 * (registration returns 0) and reported once per reason.  Schemas are
 * immutable once published; lookups scan the published prefix without the
 * lock.
 */
#include "nvtx/nvtx.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt.h"

#define NV_ENUMS 1024

static struct {
	pthread_mutex_t lock;
	struct tly_nv_schema *s[TLY_NV_MAX_SCHEMAS];
	_Atomic int ns;
	struct tly_nv_enum *en[NV_ENUMS];
	_Atomic int nen;
	uint64_t next_id;
	nvtxPayloadEntryTypeInfo_t ti[NVTX_PAYLOAD_ENTRY_TYPE_INFO_ARRAY_SIZE];
	int have_ti;
	char why[256];
	char said[48][64];            /* reasons logged (formats) */
	int nsaid;
} reg = { .lock = PTHREAD_MUTEX_INITIALIZER, .next_id = NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START };

void tly_nv_set_typeinfo(const nvtxPayloadEntryTypeInfo_t *ti)
{
	/* entry 0 holds the array's length and the size of one element */
	if (!ti || ti[0].size < 2 || ti[0].align != sizeof *ti)
		return;
	pthread_mutex_lock(&reg.lock);
	for (size_t i = 1; i < ti[0].size && i < NVTX_PAYLOAD_ENTRY_TYPE_INFO_ARRAY_SIZE; i++)
		reg.ti[i] = ti[i];
	reg.have_ti = 1;
	pthread_mutex_unlock(&reg.lock);
}

static int fixed_prim(uint64_t t, uint64_t *size)
{
	switch (t) {
	case NVTX_PAYLOAD_ENTRY_TYPE_BYTE: *size = 1; return 1;
	case NVTX_PAYLOAD_ENTRY_TYPE_INT128: case NVTX_PAYLOAD_ENTRY_TYPE_UINT128:
	case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT128: *size = 16; return 1;
	case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT16: case NVTX_PAYLOAD_ENTRY_TYPE_BF16: *size = 2; return 1;
	case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT32: case NVTX_PAYLOAD_ENTRY_TYPE_TF32:
	case NVTX_PAYLOAD_ENTRY_TYPE_CATEGORY: case NVTX_PAYLOAD_ENTRY_TYPE_COLOR_ARGB:
	case NVTX_PAYLOAD_ENTRY_TYPE_PID_UINT32: case NVTX_PAYLOAD_ENTRY_TYPE_TID_UINT32:
	case NVTX_PAYLOAD_ENTRY_TYPE_UNION_SELECTOR: *size = 4; return 1;
	case NVTX_PAYLOAD_ENTRY_TYPE_FLOAT64: case NVTX_PAYLOAD_ENTRY_TYPE_SCOPE_ID:
	case NVTX_PAYLOAD_ENTRY_TYPE_PID_UINT64: case NVTX_PAYLOAD_ENTRY_TYPE_TID_UINT64: *size = 8; return 1;
	case NVTX_PAYLOAD_ENTRY_TYPE_CSTRING: case NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8: *size = 1; return 1;
	case NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF16: *size = 2; return 1;
	case NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF32: *size = 4; return 1;
	case NVTX_PAYLOAD_ENTRY_TYPE_NVTX_REGISTERED_STRING_HANDLE: *size = sizeof(void *); return 1;
	default: return 0;
	}
}

/* Sizes of this build's C types, used when the application passed none. */
static const uint8_t own_size[NVTX_PAYLOAD_ENTRY_TYPE_INFO_ARRAY_SIZE] = {
	0, 1, 1, sizeof(short), sizeof(short), sizeof(int), sizeof(int), sizeof(long), sizeof(long),
	sizeof(long long), sizeof(long long), 1, 1, 2, 2, 4, 4, 8, 8, sizeof(float), sizeof(double),
	sizeof(long double), sizeof(size_t), sizeof(void *), sizeof(wchar_t), 1, 2, 4
};

int tly_nv_prim(uint64_t t, uint64_t *size, uint64_t *align)
{
	if (t >= 1 && t < NVTX_PAYLOAD_ENTRY_TYPE_INFO_ARRAY_SIZE) {
		*size = reg.have_ti && reg.ti[t].size ? reg.ti[t].size : own_size[t];
		*align = reg.have_ti && reg.ti[t].align ? reg.ti[t].align : own_size[t];
		return 1;
	}
	if (!fixed_prim(t, size))
		return 0;
	*align = *size > 8 ? 16 : *size;
	if (t == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING || t == NVTX_PAYLOAD_ENTRY_TYPE_CSTRING_UTF8)
		*align = 1;
	return 1;
}

int tly_nv_refuse(const char *name, const char *fmt, const char *detail)
{
	int seen = 0;

	snprintf(reg.why, sizeof reg.why, fmt, detail);
	for (int i = 0; i < reg.nsaid; i++)
		seen |= !strncmp(reg.said[i], fmt, sizeof reg.said[i] - 1);
	if (!seen && reg.nsaid == (int)(sizeof reg.said / sizeof *reg.said))
		seen = 1;                 /* table full: stay silent rather than repeat */
	if (!seen)
		snprintf(reg.said[reg.nsaid++], sizeof reg.said[0], "%s", fmt);
	if (!seen)
		tly_rt_log(1, "NVTX: payload schema '%s' refused: %s (further refusals for this reason are silent)",
			   name ? name : "(unnamed)", reg.why);
	return -1;
}

const char *tly_nv_last_refusal(void)
{
	return reg.why;
}

const struct tly_nv_schema *tly_nv_schema_find(uint64_t id)
{
	int n = atomic_load(&reg.ns);

	for (int i = 0; i < n; i++)
		if (reg.s[i]->id == id)
			return reg.s[i];
	return NULL;
}

const struct tly_nv_enum *tly_nv_enum_find(uint64_t id)
{
	int n = atomic_load(&reg.nen);

	for (int i = 0; i < n; i++)
		if (reg.en[i]->id == id)
			return reg.en[i];
	return NULL;
}

int tly_nv_nschemas(void)
{
	return atomic_load(&reg.ns);
}

const struct tly_nv_schema *tly_nv_schema_at(int i)
{
	return reg.s[i];
}



static void name_table(struct tly_nv_schema *s, const char *want)
{
	char buf[200];
	int n = atomic_load(&reg.ns), dup = 0;

	if (want && *want)
		snprintf(buf, sizeof buf, "%s", want);
	else
		snprintf(buf, sizeof buf, "schema_%llu", (unsigned long long)s->id);
	for (char *c = buf; *c; c++)
		if (*c == '/' || *c == '.' || (unsigned char)*c < 32)
			*c = '_';
	for (int i = 0; i < n; i++)
		dup |= !strcmp(reg.s[i]->name, buf);
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
	pthread_mutex_lock(&reg.lock);
	if (!id && a && (a->fieldMask & NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID) && a->schemaId) {
		id = a->schemaId;
		if (id < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START || id >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START
		    || !id_free(id))
			id = (uint64_t)tly_nv_refuse(want, "static schema id %s is out of range or taken", "") + 1;
	} else if (!id) {
		id = reg.next_id++;
	}
	if (!id || atomic_load(&reg.ns) == TLY_NV_MAX_SCHEMAS || tly_nv_check(a, id, s) < 0)
		goto fail;
	s->domain = domain;
	name_table(s, want);
	s->row = s->name ? tly_nv_layout(s, &s->data_off) : NULL;
	if (!s->row) {
		tly_nv_refuse(want, "its table row would exceed %s", "256 MiB (or memory ran out)");
		goto fail;
	}
	reg.s[atomic_load(&reg.ns)] = s;
	atomic_fetch_add(&reg.ns, 1);
	pthread_mutex_unlock(&reg.lock);
	return id;
fail:
	pthread_mutex_unlock(&reg.lock);
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

	pthread_mutex_lock(&reg.lock);
	if (enum_bad(a) || atomic_load(&reg.nen) == NV_ENUMS)
		goto fail;
	if (!id && (a->fieldMask & NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID) && a->schemaId) {
		id = a->schemaId;
		if (id < NVTX_PAYLOAD_SCHEMA_ID_STATIC_START || id >= NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START
		    || !id_free(id)) {
			tly_nv_refuse(a->name, "static enum id %s is out of range or taken", "");
			goto fail;
		}
	} else if (!id) {
		id = reg.next_id++;
	}
	e = enum_build(a);
	if (!e || !e->name || !e->names || !e->values)
		goto fail;         /* (leaks only on out-of-memory) */
	e->id = id;
	e->domain = domain;
	reg.en[atomic_load(&reg.nen)] = e;
	atomic_fetch_add(&reg.nen, 1);
	pthread_mutex_unlock(&reg.lock);
	return id;
fail:
	pthread_mutex_unlock(&reg.lock);
	return 0;
}

/* Fuzzing only: no payload may be in flight. */
void tly_nv_registry_reset(void)
{
	pthread_mutex_lock(&reg.lock);
	for (int i = 0; i < atomic_load(&reg.ns); i++)
		tly_nv_schema_free(reg.s[i]);
	for (int i = 0; i < atomic_load(&reg.nen); i++) {
		struct tly_nv_enum *e = reg.en[i];

		for (size_t k = 0; k < e->n; k++)
			free(e->names[k]);
		free(e->names);
		free(e->values);
		free(e->name);
		free(e);
	}
	atomic_store(&reg.ns, 0);
	atomic_store(&reg.nen, 0);
	reg.next_id = NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START;
	pthread_mutex_unlock(&reg.lock);
}
