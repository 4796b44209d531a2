/*
 * nvtx_cupti.c - coexistence with CUPTI's own NVTX support.  When libcupti
 * is in the process (the GPU component loaded it), CUPTI must see NVTX
 * too (kernel attribution by NVTX range).  Order found with CUDA 13:
 *   1. a CUPTI subscriber exists and the NVTX callback domain is enabled
 *      (the GPU component's tly_cu_cb_enable_nvtx; calling
 *      cuptiNvtxInitialize2 before any subscription crashed nvtxRangePushA
 *      inside libcupti),
 *   2. cuptiNvtxInitialize2(getExportTable) installs CUPTI's handlers,
 *   3. Tally installs its own, each calling CUPTI's (nvtx_core.c).
 * For the payload extension cuptiNvtxExtensionInitialize fills only the
 * schema and enum registration slots; Tally keeps them and calls them
 * first, using CUPTI's schema id.  Both CUPTI entry points are exported by
 * libcupti but declared in no header.
 */
#include "nvtx/nvtx.h"

#include <dlfcn.h>
#include <pthread.h>

#include "runtime/rt.h"

typedef int (*cupti_core_fn)(NvtxGetExportTableFunc_t);
typedef int (*cupti_ext_fn)(nvtxExtModuleInfo_t *);
typedef uint64_t (*schema_fn)(nvtxDomainHandle_t, const nvtxPayloadSchemaAttr_t *);
typedef uint64_t (*enum_fn)(nvtxDomainHandle_t, const nvtxPayloadEnumAttr_t *);

/* Provided by the GPU component (src/components/cuda) when it is built:
 * subscribes if needed and enables CUPTI_CB_DOMAIN_NVTX; 0 on success. */
extern int tly_cu_cb_enable_nvtx(void) __attribute__((weak));

static struct {
	pthread_mutex_t lock;
	void *lib;
	int ready;            /* 1: CUPTI's NVTX support initialised */
	schema_fn schema;
	enum_fn en;
} cu = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void *cupti_loaded(void)
{
	void *h = dlopen("libcupti.so", RTLD_NOW | RTLD_NOLOAD);

	if (!h)
		h = dlopen("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		h = dlopen("libcupti.so.12", RTLD_NOW | RTLD_NOLOAD);
	return h;
}

int tly_nv_cupti_core(NvtxGetExportTableFunc_t get)
{
	cupti_core_fn init;

	pthread_mutex_lock(&cu.lock);
	cu.lib = cupti_loaded();
	if (!cu.lib || !(init = (cupti_core_fn)dlsym(cu.lib, "cuptiNvtxInitialize2"))) {
		pthread_mutex_unlock(&cu.lock);
		return 0;
	}
	if (!tly_cu_cb_enable_nvtx || tly_cu_cb_enable_nvtx() != 0) {
		tly_rt_log(2, "NVTX: libcupti is loaded but no CUPTI subscriber with the NVTX domain exists; "
			   "CUPTI's NVTX support is left off (Tally records NVTX itself)");
		pthread_mutex_unlock(&cu.lock);
		return 0;
	}
	cu.ready = init(get) != 0;
	pthread_mutex_unlock(&cu.lock);
	return cu.ready;
}

int tly_nv_cupti_ext(nvtxExtModuleInfo_t *mi)
{
	cupti_ext_fn init;
	intptr_t *slots = mi->segments[0].functionSlots;

	pthread_mutex_lock(&cu.lock);
	if (cu.ready && cu.lib && (init = (cupti_ext_fn)dlsym(cu.lib, "cuptiNvtxExtensionInitialize"))
	    && init(mi) && mi->segments[0].slotCount > NVTX3EXT_CBID_nvtxPayloadEnumRegister) {
		cu.schema = (schema_fn)slots[NVTX3EXT_CBID_nvtxPayloadSchemaRegister];
		cu.en = (enum_fn)slots[NVTX3EXT_CBID_nvtxPayloadEnumRegister];
	}
	pthread_mutex_unlock(&cu.lock);
	return cu.schema != NULL;
}

uint64_t tly_nv_cupti_schema(nvtxDomainHandle_t d, const nvtxPayloadSchemaAttr_t *a)
{
	schema_fn f = cu.schema;

	return f && (intptr_t)f > 1 ? f(d, a) : 0;
}

uint64_t tly_nv_cupti_enum(nvtxDomainHandle_t d, const nvtxPayloadEnumAttr_t *a)
{
	enum_fn f = cu.en;

	return f && (intptr_t)f > 1 ? f(d, a) : 0;
}
