/*
 * nccl_stub.c - libnccl_stub.so for nccl_scope_app: a stand-in for NCCL's
 * host side as Tally sees it.  Like NCCL, it marks each call with a
 * push/pop range of its NVTX domain "NCCL", created at the communicator's
 * set-up; a call spins about `ms` milliseconds in its range.  No GPU.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <time.h>

#include <nvtx3/nvToolsExt.h>

#define EXPORT __attribute__((visibility("default")))

static nvtxDomainHandle_t dom;

static void range_push(const char *name)
{
	nvtxEventAttributes_t a = { 0 };

	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = name;
	nvtxDomainRangePushEx(dom, &a);
}

static void spin_ms(int ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) < ms * 1000000LL);
}

EXPORT int ncclCommInitRank(void **comm, int nranks, int rank)
{
	if (!dom)
		dom = nvtxDomainCreateA("NCCL");
	range_push("ncclCommInitRank");
	*comm = (void *)(uintptr_t)(nranks * 1000 + rank + 1);
	nvtxDomainRangePop(dom);
	return 0;
}

EXPORT int ncclAllReduce(int ms)
{
	range_push("ncclAllReduce");
	spin_ms(ms);
	nvtxDomainRangePop(dom);
	return 0;
}
