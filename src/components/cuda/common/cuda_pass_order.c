/*
 * cuda_pass_order.c - the order of a metric list in the config image of
 * a kernel-replay session while the L2 flush is on (TALLY_CUDA_CACHE=flush).
 *
 * Under CUPTI's kernel replay the flush queued before a launch precedes
 * its first pass only: CUPTI runs the next passes right after the first,
 * restoring the memory the kernel wrote, with no hook in between, so a
 * kernel whose data fits in the L2 finds it there in pass 2 and later
 * (issue 50: dram__bytes_read.sum 34% low with inst + ffma + dram,
 * 2 passes, on an H200).  The metrics whose values depend on the cache
 * state (DRAM, L2, L1/tex, frame buffer) are put first in the list the
 * config is built from, so the scheduler places them in the first pass,
 * the one after the flush; counts of instructions, warps and threads are
 * the same in every pass.  When those metrics need more than one pass by
 * themselves, the later ones cannot start cold: said once, with what
 * gives ncu's values (--passes=auto).
 */
#include "cuda_internal.h"
#include "cuda_pass_order.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"

static const char *const sensitive[] = { "dram__", "lts__", "l1tex__", "fbpa__", "fbp__", "ltc__", "lrc__",
					 "gpu__dram", "sm__memory", "smsp__l1tex", "sm__l1tex" };

int tly_cu_cache_sensitive(const char *name)
{
	for (size_t i = 0; name && i < sizeof sensitive / sizeof *sensitive; i++)
		if (!strncmp(name, sensitive[i], strlen(sensitive[i])))
			return 1;
	return 0;
}

const char **tly_cu_flush_order(const char *const *names, int n, int *nsens)
{
	const char **o = calloc((size_t)(n > 0 ? n : 1), sizeof *o);
	int k = 0;

	*nsens = 0;
	if (!o)
		return NULL;
	for (int pass = 1; pass >= 0; pass--)
		for (int i = 0; i < n; i++)
			if (tly_cu_cache_sensitive(names[i]) == pass)
				o[k++] = names[i];
	for (int i = 0; i < n; i++)
		*nsens += tly_cu_cache_sensitive(names[i]);
	return o;
}

void tly_cu_flush_check(const char *chip, const uint8_t *avail, const char *const *ordered, int nsens,
			size_t passes)
{
	static atomic_int said;
	size_t p;

	if (nsens <= 0 || passes <= 1)
		return;
	p = tly_cu_config_passes(chip, avail, ordered, nsens);
	if (p <= 1 || atomic_exchange(&said, 1))
		return;
	fprintf(stderr, "tally: cuda: the cache-dependent GPU metrics (DRAM, L2, L1) of this list need %zu passes by "
		"themselves; under kernel replay only the first pass starts from a flushed L2, so their values in "
		"later passes may be low: --passes=auto (application replay) gives ncu's\n", p);
}
