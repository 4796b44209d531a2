/*
 * gpu_cupti_peer.c - another CUPTI tool in the process refused, said once.
 *
 * CUPTI takes one subscriber per process.  While Tally collects GPU
 * metrics it holds the subscription, and an application's own CUPTI tool
 * (torch.profiler through Kineto, a tool of the program's) gets
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: only that tool said so
 * (issue 50: PyTorch printed the error, Tally nothing at its default
 * verbosity).  The preload exports cuptiSubscribe: an application's call
 * reaches this function first (a preloaded library comes before the
 * libraries an extension module loads), which calls libcupti's own and,
 * when it refuses because Tally holds the subscription, says so once at
 * the default verbosity, naming --cupti=app.  Tally's own subscription
 * goes through its handle of libcupti (components/cuda/common/cuda_dl.c)
 * and never comes here.  libcupti's function is found after this library
 * (RTLD_NEXT), else in the libcupti already loaded (an extension module's,
 * not in the global scope); without one the call answers
 * CUPTI_ERROR_NOT_INITIALIZED, as a libcupti without a driver does.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>

#include "tally_gpu.h"
#include "runtime/rt.h"

/* cupti_result.h's values (no CUDA header in wrappers/) */
#define CUPTI_ERROR_NOT_INITIALIZED_ 15
#define CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_ 39

typedef int (*subscribe_fn)(void **subscriber, void *callback, void *userdata);

static subscribe_fn real_subscribe(void)
{
	static const char *const names[] = { "libcupti.so.13", "libcupti.so.12", "libcupti.so.11.8", "libcupti.so" };
	void *f = dlsym(RTLD_NEXT, "cuptiSubscribe");

	for (size_t i = 0; !f && i < sizeof names / sizeof *names; i++) {
		void *h = dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD);

		if (h) {
			f = dlsym(h, "cuptiSubscribe");
			dlclose(h);
		}
	}
	return (subscribe_fn)f;
}

__attribute__((visibility("default"))) int cuptiSubscribe(void **subscriber, void *callback, void *userdata)
{
	static atomic_int said;
	subscribe_fn f = real_subscribe();
	int r;

	if (!f || (void *)f == (void *)cuptiSubscribe)
		return CUPTI_ERROR_NOT_INITIALIZED_;
	r = f(subscriber, callback, userdata);
	if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_ && tally_gpu_subscribed() && !atomic_exchange(&said, 1))
		tly_rt_log(1, "another CUPTI tool of this program (torch.profiler, a profiler of its own) was refused: "
			   "Tally holds CUPTI's one subscription for the GPU metrics; --cupti=app leaves CUPTI to that "
			   "tool (and Tally collects no GPU metrics)");
	return r;
}
