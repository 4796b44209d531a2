/*
 * cuda_replay_cache.c - what CUPTI's kernel replay does to cache-dependent
 * metrics, said once.
 *
 * Under CUPTI's kernel replay the L2 flush queued before a launch
 * (TALLY_CUDA_CACHE=flush, cuda_cache.c) precedes the first pass only:
 * CUPTI runs the next passes right after it, restoring the memory the
 * kernel wrote, with no hook in between.  A kernel whose data fits in the
 * L2 finds it there in later passes, and the DRAM/L2 metrics collected in
 * them are low (issue 50, H200: a kernel reading 32 MiB, inst + ffma +
 * dram in 2 passes: dram__bytes_read.sum 20.0 MB per launch against 33.56
 * MB from ncu).  So such lists are replayed by Tally itself, with a flush
 * before every pass (cuda_replay_own.c); when it cannot (no CUPTI
 * Checkpoint library, no launch callback), the list is replayed by CUPTI,
 * this says so once naming --passes=auto (application replay: a flush
 * before each kernel of every pass), and the rows of those metrics say
 * "flush, pass 1" in gpu_kernels.cache (wrappers/gpu/gpu_rows.c).
 */
#include "cuda_internal.h"
#include "cuda_replay_cache.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

static const char *const sensitive[] = { "dram__", "lts__", "l1tex__", "fbpa__", "fbp__", "ltc__", "lrc__",
					 "gpu__dram", "sm__memory", "smsp__l1tex", "sm__l1tex" };

int tally_gpu_metric_cache_dependent(const char *name)
{
	if (name && !strncmp(name, "cuda:::", 7))
		name += 7;
	for (size_t i = 0; name && i < sizeof sensitive / sizeof *sensitive; i++)
		if (!strncmp(name, sensitive[i], strlen(sensitive[i])))
			return 1;
	return 0;
}

void tly_cu_replay_cache_check(const char *const *names, int n, size_t passes, const char *why)
{
	static atomic_int said;
	int k = -1;

	if (passes <= 1 || tly_cu_cache_mode() != 1)
		return;
	for (int i = 0; i < n && k < 0; i++)
		if (tally_gpu_metric_cache_dependent(names[i]))
			k = i;
	if (k < 0 || atomic_exchange(&said, 1))
		return;
	fprintf(stderr, "tally: cuda: these GPU metrics need %zu passes (kernel replay) and Tally cannot replay the "
		"kernels itself (%s): CUPTI runs the passes one after another with no L2 flush between them, so %s "
		"and the other cache-dependent metrics may be low (the data a later pass reads is in the L2); "
		"--passes=auto (application replay) flushes before every pass and gives ncu's values\n", passes,
		why && *why ? why : "no launch callback", names[k]);
}
