/*
 * nvtx_registry.c - what the schema registration (nvtx_schema.c), the
 * checks (nvtx_check.c) and the row types (nvtx_layout.c) share: the
 * published schemas and enums (immutable once published; lookups scan the
 * published prefix without the lock), the application's type sizes, and
 * the refusals said.  It calls none of them.
 */
#include "nvtx/nvtx.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/rt.h"

static struct {
	pthread_mutex_t lock;
	struct tly_nv_schema *s[TLY_NV_MAX_SCHEMAS];
	_Atomic int ns;
	struct tly_nv_enum *en[TLY_NV_MAX_ENUMS];
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

/* ---- for the registration (nvtx_schema.c), under the lock ----------- */
void tly_nv_registry_lock(int lock)
{
	if (lock)
		pthread_mutex_lock(&reg.lock);
	else
		pthread_mutex_unlock(&reg.lock);
}

uint64_t tly_nv_registry_next_id(void)
{
	return reg.next_id++;
}

int tly_nv_nenums(void)
{
	return atomic_load(&reg.nen);
}

const struct tly_nv_enum *tly_nv_enum_at(int i)
{
	return reg.en[i];
}

/* Lookups scan the published prefix without the lock: the slot is filled
 * before the count grows. */
void tly_nv_schema_publish(struct tly_nv_schema *s)
{
	reg.s[atomic_load(&reg.ns)] = s;
	atomic_fetch_add(&reg.ns, 1);
}

void tly_nv_enum_publish(struct tly_nv_enum *e)
{
	reg.en[atomic_load(&reg.nen)] = e;
	atomic_fetch_add(&reg.nen, 1);
}

void tly_nv_registry_forget(void)
{
	atomic_store(&reg.ns, 0);
	atomic_store(&reg.nen, 0);
	reg.next_id = NVTX_PAYLOAD_SCHEMA_ID_DYNAMIC_START;
}
