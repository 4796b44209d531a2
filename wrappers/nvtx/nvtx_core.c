/*
 * nvtx_core.c - Tally as NVTX tool: InitializeInjectionNvtx2 installs the
 * core handlers (A, W and Ex forms, domain forms).  Push/pop ranges are
 * regions of the thread's region tree (counters read at their
 * boundaries); marks are timestamped events; start/end ranges, which may
 * end on another thread, go to a process list.  CUPTI's own NVTX support
 * (cuptiNvtxInitialize2) is not chained: Tally records NVTX itself, and
 * CUPTI would need a subscriber with the NVTX domain, which Tally takes
 * only for GPU features (docs/nvtx.md).
 */
#include "nvtx/nvtx.h"
#include "regions/regions.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "runtime/rt.h"

#define TALLY_RT_EXPORT __attribute__((visibility("default")))

static struct {
	pthread_mutex_t lock;
} core = { .lock = PTHREAD_MUTEX_INITIALIZER };

const char *tly_nv_attr_message(const nvtxEventAttributes_t *a, char *buf, size_t len)
{
	if (!a || a->size < offsetof(nvtxEventAttributes_t, message) + sizeof a->message)
		return NULL;
	switch (a->messageType) {
	case NVTX_MESSAGE_TYPE_ASCII:
		return a->message.ascii;
	case NVTX_MESSAGE_TYPE_UNICODE:
		if (!a->message.unicode)
			return NULL;
		tly_nv_utf8(a->message.unicode, sizeof(wchar_t), len, buf, len);
		return buf;
	case NVTX_MESSAGE_TYPE_REGISTERED:
		return tly_nv_string(a->message.registered);
	default:
		return NULL;
	}
}

static const nvtxPayloadData_t *ext_payload(const nvtxEventAttributes_t *a, size_t *n)
{
	if (!a || a->size < offsetof(nvtxEventAttributes_t, messageType) || a->payloadType != NVTX_PAYLOAD_TYPE_EXT)
		return NULL;
	*n = a->reserved0 > 0 ? (size_t)a->reserved0 : 1;
	return (const nvtxPayloadData_t *)(uintptr_t)a->payload.ullValue;
}

static uint32_t category(const nvtxEventAttributes_t *a)
{
	return a && a->size >= offsetof(nvtxEventAttributes_t, colorType) ? a->category : 0;
}

const char *tly_nv_region_name(int domain, const char *msg, char *buf, size_t len)
{
	if (!msg || !*msg)
		msg = "(unnamed range)";
	if (!domain)
		return msg;
	snprintf(buf, len, "%s::%s", tly_nv_domain_name(domain), msg);
	return buf;
}

/* Push: the region's name comes from the attributes' message, else from a
 * payload entry flagged as event message. */
int tly_nv_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a, const char *msg)
{
	struct tly_nv_thread *t = tly_nv_self();
	char mbuf[256], pbuf[256], nbuf[300];
	const nvtxPayloadData_t *pd;
	size_t n = 0, first;
	int dom = tly_nv_domain_index(d), lvl, borrowed;

	if (!t)
		return NVTX_NO_PUSH_POP_TRACKING;
	lvl = t->depth++;
	if (lvl < 256)
		t->entered[lvl] = 0;
	if (dom < 0 || !tly_nv_domain_enabled(d))
		return lvl;
	if (!msg)
		msg = tly_nv_attr_message(a, mbuf, sizeof mbuf);
	first = t->nrows;
	pd = ext_payload(a, &n);
	if (pd) {
		const char *pm = tly_nv_payloads(t, dom, TLY_NV_EV_PUSH, 0, pd, n, tly_rt_now(), pbuf, sizeof pbuf);

		msg = msg ? msg : pm;
	}
	borrowed = lvl < 256 ? tly_nv_borrow(t, dom) : 0;
	if (lvl < 256)
		t->entered[lvl] = (uint8_t)(borrowed << 1);
	if (tly_rt_enter(t->rt, tly_nv_region_name(dom, msg, nbuf, sizeof nbuf), TLY_RK_NVTX,
			 tly_nv_opts()->counters) == 0 && lvl < 256)
		t->entered[lvl] |= 1;
	for (size_t k = first; k < t->nrows; k++)
		((struct tly_nv_hdr *)t->rows[k].row)->region = t->rt->stack[t->rt->depth - 1].node;
	return lvl;
}

int tly_nv_pop(nvtxDomainHandle_t d)
{
	struct tly_nv_thread *t = tly_nv_self();
	int lvl;

	(void)d;
	if (!t)
		return NVTX_NO_PUSH_POP_TRACKING;
	if (!t->depth)
		return -1;
	lvl = --t->depth;
	if (lvl >= 256 || (t->entered[lvl] & 1))
		tly_rt_exit(t->rt);
	for (int b = lvl < 256 ? t->entered[lvl] >> 1 : 0; b > 0; b--)
		tly_rt_exit(t->rt);   /* the process's region it borrowed (nvtx_borrow.c) */
	return lvl;
}

void tly_nv_mark(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a, const char *msg)
{
	struct tly_nv_thread *t = tly_nv_self();
	char mbuf[256], pbuf[256];
	const nvtxPayloadData_t *pd;
	int dom = tly_nv_domain_index(d);
	int64_t now = tly_rt_now();
	size_t n = 0;

	if (!t || dom < 0 || !tly_nv_domain_enabled(d))
		return;
	if (!msg)
		msg = tly_nv_attr_message(a, mbuf, sizeof mbuf);
	if ((pd = ext_payload(a, &n))) {
		const char *pm = tly_nv_payloads(t, dom, TLY_NV_EV_MARK, 0, pd, n, now, pbuf, sizeof pbuf);

		msg = msg ? msg : pm;
	}
	tly_nv_mark_add(t, dom, category(a), now, msg);
}

nvtxRangeId_t tly_nv_start(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a, const char *msg)
{
	struct tly_nv_thread *t = tly_nv_self();
	char mbuf[256], pbuf[256];
	const nvtxPayloadData_t *pd;
	int dom = tly_nv_domain_index(d);
	uint64_t id;
	size_t n = 0, first;

	if (!t || dom < 0 || !tly_nv_domain_enabled(d))
		return 0;
	if (!msg)
		msg = tly_nv_attr_message(a, mbuf, sizeof mbuf);
	first = t->nrows;
	if ((pd = ext_payload(a, &n))) {
		const char *pm = tly_nv_payloads(t, dom, TLY_NV_EV_START, 0, pd, n, tly_rt_now(), pbuf, sizeof pbuf);

		msg = msg ? msg : pm;
	}
	id = tly_nv_range_start(dom, category(a), msg);
	for (size_t k = first; k < t->nrows; k++)
		((struct tly_nv_hdr *)t->rows[k].row)->range_id = id;
	return id;
}

/* ---- handlers installed in the NVTX slots ----------------------------- */
static void h_MarkEx(const nvtxEventAttributes_t *a)
{
	tly_nv_mark(NULL, a, NULL);
}
static void h_MarkA(const char *m)
{
	tly_nv_mark(NULL, NULL, m ? m : "");
}
static void h_MarkW(const wchar_t *m)
{
	char b[256];

	tly_nv_utf8(m ? (const void *)m : (const void *)L"", sizeof(wchar_t), sizeof b, b, sizeof b);
	tly_nv_mark(NULL, NULL, b);
}
static nvtxRangeId_t h_RangeStartEx(const nvtxEventAttributes_t *a)
{
	return tly_nv_start(NULL, a, NULL);
}
static nvtxRangeId_t h_RangeStartA(const char *m)
{
	return tly_nv_start(NULL, NULL, m ? m : "");
}
static nvtxRangeId_t h_RangeStartW(const wchar_t *m)
{
	char b[256];

	tly_nv_utf8(m ? (const void *)m : (const void *)L"", sizeof(wchar_t), sizeof b, b, sizeof b);
	return tly_nv_start(NULL, NULL, b);
}
static void h_RangeEnd(nvtxRangeId_t id)
{
	tly_nv_range_end(id);
}
static int h_RangePushEx(const nvtxEventAttributes_t *a)
{
	return tly_nv_push(NULL, a, NULL);
}
static int h_RangePushA(const char *m)
{
	return tly_nv_push(NULL, NULL, m ? m : "");
}
static int h_RangePushW(const wchar_t *m)
{
	char b[256];

	tly_nv_utf8(m ? (const void *)m : (const void *)L"", sizeof(wchar_t), sizeof b, b, sizeof b);
	return tly_nv_push(NULL, NULL, b);
}
static int h_RangePop(void)
{
	return tly_nv_pop(NULL);
}
static void h_NameCategoryA(uint32_t c, const char *n)
{
	tly_nv_name_add(0, 0, c, n);
}
static void h_NameCategoryW(uint32_t c, const wchar_t *n)
{
	char b[256];

	tly_nv_utf8(n ? (const void *)n : (const void *)L"", sizeof(wchar_t), sizeof b, b, sizeof b);
	tly_nv_name_add(0, 0, c, b);
}
static void h_NameOsThreadA(uint32_t tid, const char *n)
{
	tly_nv_name_add(0, 1, tid, n);
}
static void h_NameOsThreadW(uint32_t tid, const wchar_t *n)
{
	char b[256];

	tly_nv_utf8(n ? (const void *)n : (const void *)L"", sizeof(wchar_t), sizeof b, b, sizeof b);
	tly_nv_name_add(0, 1, tid, b);
}

/* ---- domain forms ------------------------------------------------------- */
static void h_DomainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	tly_nv_mark(d, a, NULL);
}
static nvtxRangeId_t h_DomainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	return tly_nv_start(d, a, NULL);
}
static void h_DomainRangeEnd(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
	(void)d;
	tly_nv_range_end(id);
}
static int h_DomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	return tly_nv_push(d, a, NULL);
}
static int h_DomainRangePop(nvtxDomainHandle_t d)
{
	return tly_nv_pop(d);
}
static nvtxResourceHandle_t h_DomainResourceCreate(nvtxDomainHandle_t d, nvtxResourceAttributes_t *a)
{
	(void)d;
	(void)a;
	return (nvtxResourceHandle_t)(uintptr_t)1;   /* resources are not recorded */
}
static void h_DomainResourceDestroy(nvtxResourceHandle_t r)
{
	(void)r;
}
static void h_DomainNameCategoryA(nvtxDomainHandle_t d, uint32_t c, const char *n)
{
	tly_nv_name_add(tly_nv_domain_index(d), 0, c, n);
}
static void h_DomainNameCategoryW(nvtxDomainHandle_t d, uint32_t c, const wchar_t *n)
{
	char b[256];

	tly_nv_utf8(n ? (const void *)n : (const void *)L"", sizeof(wchar_t), sizeof b, b, sizeof b);
	tly_nv_name_add(tly_nv_domain_index(d), 0, c, b);
}
static nvtxStringHandle_t h_DomainRegisterStringA(nvtxDomainHandle_t d, const char *s)
{
	return tly_nv_string_register(tly_nv_domain_index(d), s);
}
static nvtxStringHandle_t h_DomainRegisterStringW(nvtxDomainHandle_t d, const wchar_t *s)
{
	char b[1024];

	if (!s)
		return NULL;
	tly_nv_utf8(s, sizeof(wchar_t), sizeof b, b, sizeof b);
	return tly_nv_string_register(tly_nv_domain_index(d), b);
}
static nvtxDomainHandle_t h_DomainCreateA(const char *n)
{
	nvtxDomainHandle_t d = tly_nv_domain_create(n);

	tly_nv_borrow_domain(d, n);
	return d;
}
static nvtxDomainHandle_t h_DomainCreateW(const wchar_t *n)
{
	char b[256];

	tly_nv_utf8(n ? (const void *)n : (const void *)L"", sizeof(wchar_t), sizeof b, b, sizeof b);
	return h_DomainCreateA(b);
}
static void h_DomainDestroy(nvtxDomainHandle_t d)
{
	tly_nv_domain_destroy(d);
}
static void h_Initialize(const void *r)
{
	(void)r;
}

/* ---- installation ------------------------------------------------------- */
struct slot { int id; NvtxFunctionPointer fn; };
#define SLOT(id, f) { id, (NvtxFunctionPointer)f }

static const struct slot core_slots[] = {
	SLOT(NVTX_CBID_CORE_MarkEx, h_MarkEx), SLOT(NVTX_CBID_CORE_MarkA, h_MarkA),
	SLOT(NVTX_CBID_CORE_MarkW, h_MarkW), SLOT(NVTX_CBID_CORE_RangeStartEx, h_RangeStartEx),
	SLOT(NVTX_CBID_CORE_RangeStartA, h_RangeStartA), SLOT(NVTX_CBID_CORE_RangeStartW, h_RangeStartW),
	SLOT(NVTX_CBID_CORE_RangeEnd, h_RangeEnd), SLOT(NVTX_CBID_CORE_RangePushEx, h_RangePushEx),
	SLOT(NVTX_CBID_CORE_RangePushA, h_RangePushA), SLOT(NVTX_CBID_CORE_RangePushW, h_RangePushW),
	SLOT(NVTX_CBID_CORE_RangePop, h_RangePop), SLOT(NVTX_CBID_CORE_NameCategoryA, h_NameCategoryA),
	SLOT(NVTX_CBID_CORE_NameCategoryW, h_NameCategoryW), SLOT(NVTX_CBID_CORE_NameOsThreadA, h_NameOsThreadA),
	SLOT(NVTX_CBID_CORE_NameOsThreadW, h_NameOsThreadW),
};
static const struct slot core2_slots[] = {
	SLOT(NVTX_CBID_CORE2_DomainMarkEx, h_DomainMarkEx),
	SLOT(NVTX_CBID_CORE2_DomainRangeStartEx, h_DomainRangeStartEx),
	SLOT(NVTX_CBID_CORE2_DomainRangeEnd, h_DomainRangeEnd),
	SLOT(NVTX_CBID_CORE2_DomainRangePushEx, h_DomainRangePushEx),
	SLOT(NVTX_CBID_CORE2_DomainRangePop, h_DomainRangePop),
	SLOT(NVTX_CBID_CORE2_DomainResourceCreate, h_DomainResourceCreate),
	SLOT(NVTX_CBID_CORE2_DomainResourceDestroy, h_DomainResourceDestroy),
	SLOT(NVTX_CBID_CORE2_DomainNameCategoryA, h_DomainNameCategoryA),
	SLOT(NVTX_CBID_CORE2_DomainNameCategoryW, h_DomainNameCategoryW),
	SLOT(NVTX_CBID_CORE2_DomainRegisterStringA, h_DomainRegisterStringA),
	SLOT(NVTX_CBID_CORE2_DomainRegisterStringW, h_DomainRegisterStringW),
	SLOT(NVTX_CBID_CORE2_DomainCreateA, h_DomainCreateA), SLOT(NVTX_CBID_CORE2_DomainCreateW, h_DomainCreateW),
	SLOT(NVTX_CBID_CORE2_DomainDestroy, h_DomainDestroy), SLOT(NVTX_CBID_CORE2_Initialize, h_Initialize),
};

struct table { NvtxFunctionTable t; unsigned int n; };

static int open_table(const NvtxExportTableCallbacks *cb, NvtxCallbackModule m, struct table *t)
{
	if (!cb->GetModuleFunctionTable(m, &t->t, &t->n) || !t->t)
		return -1;
	return 0;
}

/* Install ours. */
static void fill(struct table *t, const struct slot *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned int id = (unsigned int)s[i].id;

		if (id >= t->n || !t->t[id])
			continue;
		*t->t[id] = s[i].fn;
	}
}

TALLY_RT_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
	const NvtxExportTableCallbacks *cb;
	struct table c1 = { 0 }, c2 = { 0 };

	if (!get || !tly_rt_enabled() || !tly_nv_opts()->on)
		return 0;
	cb = (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS);
	if (!cb || cb->struct_size < sizeof *cb || open_table(cb, NVTX_CB_MODULE_CORE, &c1) < 0
	    || open_table(cb, NVTX_CB_MODULE_CORE2, &c2) < 0) {
		tly_rt_log(1, "NVTX: the application's NVTX offers no callback table; NVTX is not recorded");
		return 0;
	}
	pthread_mutex_lock(&core.lock);
	fill(&c1, core_slots, sizeof core_slots / sizeof *core_slots);
	fill(&c2, core2_slots, sizeof core2_slots / sizeof *core2_slots);
	pthread_mutex_unlock(&core.lock);
	return 1;
}
