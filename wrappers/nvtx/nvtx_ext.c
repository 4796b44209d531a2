/*
 * nvtx_ext.c - the payload extension (nvToolsExtPayload.h, module 2):
 * InitializeInjectionNvtxExtension fills every slot of the module.
 * Payload ranges and marks go through the core paths with the payloads
 * attached as extended payload; deferred events are placed at their own
 * timestamps converted to Tally's clock.
 */
#include "nvtx/nvtx.h"

#include <string.h>

#include "runtime/rt.h"

#define TALLY_RT_EXPORT __attribute__((visibility("default")))

static nvtxEventAttributes_t attr_of(const nvtxPayloadData_t *pd, size_t n)
{
	nvtxEventAttributes_t a;

	memset(&a, 0, sizeof a);
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.payloadType = NVTX_PAYLOAD_TYPE_EXT;
	a.reserved0 = (int32_t)(n > 64 ? 64 : n);
	a.payload.ullValue = (uint64_t)(uintptr_t)pd;
	return a;
}

static uint64_t x_SchemaRegister(nvtxDomainHandle_t d, const nvtxPayloadSchemaAttr_t *a)
{
	int dom = tly_nv_domain_index(d);

	return tly_nv_schema_register(dom < 0 ? 0 : dom, a, 0);
}

static uint64_t x_EnumRegister(nvtxDomainHandle_t d, const nvtxPayloadEnumAttr_t *a)
{
	int dom = tly_nv_domain_index(d);

	return tly_nv_enum_register(dom < 0 ? 0 : dom, a, 0);
}

static uint64_t x_ScopeRegister(nvtxDomainHandle_t d, const nvtxScopeAttr_t *a)
{
	return tly_nv_scope_register(tly_nv_domain_index(d), a);
}

static void x_MarkPayload(nvtxDomainHandle_t d, const nvtxPayloadData_t *pd, size_t n)
{
	nvtxEventAttributes_t a = attr_of(pd, n);

	tly_nv_mark(d, &a, NULL);
}

static int x_RangePushPayload(nvtxDomainHandle_t d, const nvtxPayloadData_t *pd, size_t n)
{
	nvtxEventAttributes_t a = attr_of(pd, n);

	return tly_nv_push(d, &a, NULL);
}

/* Pop payloads extend the range: rows tied to the region being closed. */
static int x_RangePopPayload(nvtxDomainHandle_t d, const nvtxPayloadData_t *pd, size_t n)
{
	struct tly_nv_thread *t = tly_nv_self();
	int dom = tly_nv_domain_index(d);

	if (t && dom >= 0 && tly_nv_domain_enabled(d))
		tly_nv_payloads(t, dom, TLY_NV_EV_POP, 0, pd, n, tly_rt_now(), NULL, 0);
	return tly_nv_pop(d);
}

static nvtxRangeId_t x_RangeStartPayload(nvtxDomainHandle_t d, const nvtxPayloadData_t *pd, size_t n)
{
	nvtxEventAttributes_t a = attr_of(pd, n);

	return tly_nv_start(d, &a, NULL);
}

static void x_RangeEndPayload(nvtxDomainHandle_t d, nvtxRangeId_t id, const nvtxPayloadData_t *pd, size_t n)
{
	struct tly_nv_thread *t = tly_nv_self();
	int dom = tly_nv_domain_index(d);

	if (t && dom >= 0 && tly_nv_domain_enabled(d))
		tly_nv_payloads(t, dom, TLY_NV_EV_END, id, pd, n, tly_rt_now(), NULL, 0);
	tly_nv_range_end(id);
}

static uint8_t x_DomainIsEnabled(nvtxDomainHandle_t d)
{
	return (uint8_t)tly_nv_domain_enabled(d);
}

static int64_t x_TimestampGet(void)
{
	return tly_nv_now();
}

static uint64_t x_TimeDomainRegister(nvtxDomainHandle_t d, const nvtxTimeDomainAttr_t *a)
{
	return tly_nv_time_domain_register(tly_nv_domain_index(d), a);
}

static void x_TimerSource(nvtxDomainHandle_t d, uint64_t td, uint64_t flags, int64_t (*fn)(void))
{
	(void)d;
	tly_nv_timer_source(td, flags, fn, NULL, NULL);
}

static void x_TimerSourceWithData(nvtxDomainHandle_t d, uint64_t td, uint64_t flags, int64_t (*fn)(void *),
				  void *data)
{
	(void)d;
	tly_nv_timer_source(td, flags, NULL, fn, data);
}

static void x_TimeSyncPoint(nvtxDomainHandle_t d, uint64_t a, uint64_t b, int64_t ta, int64_t tb)
{
	(void)d;
	tly_nv_sync(a, b, ta, tb);
}

static void x_TimeSyncPointTable(nvtxDomainHandle_t d, uint64_t src, uint64_t dst, const nvtxSyncPoint_t *p,
				 size_t n)
{
	(void)d;
	for (size_t i = 0; p && i < n; i++)
		tly_nv_sync(src, dst, p[i].src, p[i].dst);
}

static void x_TimestampConversionFactor(nvtxDomainHandle_t d, uint64_t src, uint64_t dst, double slope,
					int64_t ts, int64_t td)
{
	(void)d;
	tly_nv_factor(src, dst, slope, ts, td);
}

static void x_EventSubmit(nvtxDomainHandle_t d, const nvtxPayloadData_t *pd, size_t n)
{
	struct tly_nv_thread *t = tly_nv_self();
	int dom = tly_nv_domain_index(d);

	if (!t || dom < 0 || !tly_nv_domain_enabled(d))
		return;
	for (size_t k = 0; pd && k < n; k++)
		tly_nv_deferred(t, dom, pd[k].schemaId, pd[k].payload, pd[k].size, 1, 0, 0);
}

static void x_EventBatchSubmit(nvtxDomainHandle_t d, const nvtxEventBatch_t *b)
{
	struct tly_nv_thread *t = tly_nv_self();
	const struct tly_nv_schema *s = b ? tly_nv_schema_find(b->eventSchemaId) : NULL;
	int dom = tly_nv_domain_index(d);
	uint64_t stride = s ? tly_nv_stride(s) : 0;

	if (!t || dom < 0 || !tly_nv_domain_enabled(d) || !b || !b->events)
		return;
	if (!stride) {
		tly_nv_deferred(t, dom, b->eventSchemaId, NULL, 0, 0, 0, 0);   /* reports it */
		return;
	}
	tly_nv_deferred(t, dom, b->eventSchemaId, b->events, b->size, b->size / stride,
			tly_nv_scope_time_domain(b->scope), (int)b->scope);
}

static const intptr_t ext_slots[] = {
	[NVTX3EXT_CBID_nvtxPayloadSchemaRegister] = (intptr_t)x_SchemaRegister,
	[NVTX3EXT_CBID_nvtxPayloadEnumRegister] = (intptr_t)x_EnumRegister,
	[NVTX3EXT_CBID_nvtxMarkPayload] = (intptr_t)x_MarkPayload,
	[NVTX3EXT_CBID_nvtxRangePushPayload] = (intptr_t)x_RangePushPayload,
	[NVTX3EXT_CBID_nvtxRangePopPayload] = (intptr_t)x_RangePopPayload,
	[NVTX3EXT_CBID_nvtxRangeStartPayload] = (intptr_t)x_RangeStartPayload,
	[NVTX3EXT_CBID_nvtxRangeEndPayload] = (intptr_t)x_RangeEndPayload,
	[NVTX3EXT_CBID_nvtxDomainIsEnabled] = (intptr_t)x_DomainIsEnabled,
	[NVTX3EXT_CBID_nvtxTimestampGet] = (intptr_t)x_TimestampGet,
	[NVTX3EXT_CBID_nvtxTimeDomainRegister] = (intptr_t)x_TimeDomainRegister,
	[NVTX3EXT_CBID_nvtxTimerSource] = (intptr_t)x_TimerSource,
	[NVTX3EXT_CBID_nvtxTimerSourceWithData] = (intptr_t)x_TimerSourceWithData,
	[NVTX3EXT_CBID_nvtxScopeRegister] = (intptr_t)x_ScopeRegister,
	[NVTX3EXT_CBID_nvtxTimeSyncPoint] = (intptr_t)x_TimeSyncPoint,
	[NVTX3EXT_CBID_nvtxTimeSyncPointTable] = (intptr_t)x_TimeSyncPointTable,
	[NVTX3EXT_CBID_nvtxTimestampConversionFactor] = (intptr_t)x_TimestampConversionFactor,
	[NVTX3EXT_CBID_nvtxEventSubmit] = (intptr_t)x_EventSubmit,
	[NVTX3EXT_CBID_nvtxEventBatchSubmit] = (intptr_t)x_EventBatchSubmit,
};

TALLY_RT_EXPORT int InitializeInjectionNvtxExtension(nvtxExtModuleInfo_t *mi)
{
	nvtxExtModuleSegment_t *seg;

	if (!mi || !tly_rt_enabled() || !tly_nv_opts()->on || mi->moduleId != NVTX_EXT_PAYLOAD_MODULEID
	    || mi->segmentsCount < 1 || !mi->segments || !mi->segments[0].functionSlots)
		return 0;
	tly_nv_set_typeinfo(mi->extInfo);
	seg = &mi->segments[0];
	for (size_t i = 0; i < sizeof ext_slots / sizeof *ext_slots && i < seg->slotCount; i++)
		if (ext_slots[i])
			seg->functionSlots[i] = ext_slots[i];
	return 1;
}
