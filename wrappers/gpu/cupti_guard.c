/*
 * cupti_guard.c - the application's side of CUPTI's single subscription.
 * CUPTI accepts one subscriber per process.  Tally subscribes only when a
 * GPU feature is asked for (docs/gpu.md, coexistence); when it holds the
 * subscription and the application's own CUPTI tool (torch.profiler's
 * Kineto, an Nsight injection) then subscribes, CUPTI refuses that tool,
 * which may say nothing.  These interposed entry points pass every call
 * on to CUPTI and, when CUPTI refuses one because of Tally, say so once,
 * by name, with the setting that makes Tally yield (TALLY_CUPTI=app).
 * Tally's own calls reach CUPTI through the cuda component's dlopen'ed
 * handle and do not come here.
 */
#include <cupti.h>
#include <dlfcn.h>
#include <stdatomic.h>

#include "runtime/rt.h"
#include "tally_gpu.h"

#define TALLY_RT_EXPORT __attribute__((visibility("default")))

static atomic_int told;

static void refused(CUptiResult r, const char *name)
{
	if (r != CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED || !tally_gpu_subscribed() ||
	    atomic_exchange(&told, 1))
		return;
	tly_rt_log(1, "CUPTI refused the application's CUPTI tool%s%s%s: Tally holds CUPTI's single "
		   "subscription for its GPU features (GPU metrics or PC sampling asked for); that tool records "
		   "no GPU activity.  TALLY_CUPTI=app (tally-run --cupti=app) leaves CUPTI to the application",
		   name ? " '" : "", name ? name : "", name ? "'" : "");
}

TALLY_RT_EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc fn, void *ud)
{
	__typeof__(&cuptiSubscribe) real = (__typeof__(&cuptiSubscribe))dlsym(RTLD_NEXT, "cuptiSubscribe");
	CUptiResult r;

	if (!real)
		return CUPTI_ERROR_NOT_INITIALIZED;
	r = real(sub, fn, ud);
	refused(r, NULL);
	return r;
}

TALLY_RT_EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *sub, CUpti_CallbackFunc fn, void *ud,
					       CUpti_SubscriberParams *p)
{
	__typeof__(&cuptiSubscribe_v2) real =
		(__typeof__(&cuptiSubscribe_v2))dlsym(RTLD_NEXT, "cuptiSubscribe_v2");
	CUptiResult r;

	if (!real)
		return CUPTI_ERROR_NOT_INITIALIZED;
	r = real(sub, fn, ud, p);
	refused(r, p && p->subscriberName ? p->subscriberName : NULL);
	return r;
}
