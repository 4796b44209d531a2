/*
 * nvtx_borrow.c - NCCL's calls in the region that issued them, as the
 * process sees it.  NCCL marks each call with a push/pop range of its
 * `NCCL` domain on the calling thread; PyTorch calls the gradients'
 * all-reduce from its autograd thread, which opens no region of its own
 * while the main thread sits in `backward`, so the range would land at
 * that thread's root, '(thread)'.  When a thread at its root pushes an
 * NCCL range while a region is open in the process (the process scope
 * the kernels use, TALLY_CUDA_SCOPE=process: gpu/gpu_scope.c), it first
 * enters that region's path as borrowed frames (regions.h: timed and
 * counted, no visits), so the call is `step / backward /
 * NCCL::ncclAllReduce` on its own thread; the pop leaves them again.
 * Other domains keep the thread's own tree.
 */
#include "nvtx/nvtx.h"

#include <stdatomic.h>
#include <string.h>

#include "regions/regions.h"
#include "runtime/rt.h"

#define BORROW_MAX 32   /* levels of the process's path entered (nvtx.h: < 128) */

static atomic_int nccl_domain = -1;

void tly_nv_borrow_domain(nvtxDomainHandle_t d, const char *name)
{
	int i = tly_nv_domain_index(d);

	if (i <= 0 || !name || strcmp(name, "NCCL"))
		return;
	atomic_store(&nccl_domain, i);
	tly_region_scope_want();   /* follow the process's region from now on */
}

int tly_nv_borrow(struct tly_nv_thread *t, int dom)
{
	tly_region_scope_path_fn path;
	const char *names[BORROW_MAX];
	int32_t kinds[BORROW_MAX];
	int n, k = 0;

	if (t->rt->depth != 1 || dom <= 0 || dom != atomic_load_explicit(&nccl_domain, memory_order_relaxed))
		return 0;
	path = __atomic_load_n(&tly_region_hooks.scope_path, __ATOMIC_ACQUIRE);
	n = path ? path(t->rt, names, kinds, BORROW_MAX) : 0;
	for (int i = 0; i < n; i++)
		if (tly_rt_enter_borrowed(t->rt, names[i], kinds[i], tly_nv_opts()->counters) == 0)
			k++;
	return k;
}
